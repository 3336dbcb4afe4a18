//! Output formats. TODO(#2).
