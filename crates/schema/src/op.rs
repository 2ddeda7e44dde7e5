//! What a request does: read, write, trim or write zeroes. Every document keys its numbers by
//! these names (`"read"`, `"write"`, ...).

use std::fmt;

use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Op {
    Read,
    Write,
    Trim,
    WriteZeroes,
}

impl Op {
    pub fn name(self) -> &'static str {
        match self {
            Op::Read => "read",
            Op::Write => "write",
            Op::Trim => "trim",
            Op::WriteZeroes => "write_zeroes",
        }
    }

    /// Whether the op changes the target's contents.
    pub fn modifies(self) -> bool {
        !matches!(self, Op::Read)
    }
}

impl fmt::Display for Op {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
