//! The command line. TODO(#2).

pub fn main() -> i32 {
    0
}
