//! The span-exact HOCON loader (ruby-hocon semantics). TODO(#2): being built.

use super::{Document, Format};
use crate::span::SourceFile;

pub fn load(_file: &SourceFile) -> Document {
    Document::empty(Format::Hocon)
}
