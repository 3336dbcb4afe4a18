//! `hieralint lookup`: the `puppet lookup` equivalent. Being built.
