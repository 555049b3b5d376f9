//! What a model reads when its call was wrong: [`ToolArgumentError`] and its
//! [`ArgumentProblem`], and the Python-`repr` quoting ([`PyStr`], [`PyList`]) every name in a
//! toolwire message is written with.

use std::fmt;

/// A call's arguments were rejected before the tool's body ran.
///
/// `Display` is the whole message a model reads:
/// `tool 'run_check' call rejected: <problem>`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("tool '{tool}' call rejected: {problem}")]
pub struct ToolArgumentError {
    /// The tool whose call was rejected.
    pub tool: String,
    /// What was wrong.
    pub problem: ArgumentProblem,
}

/// What was wrong with a call's arguments.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ArgumentProblem {
    /// The arguments were not a JSON object.
    NotAnObject {
        /// What arrived instead, e.g. `an array`.
        got: String,
    },
    /// Arguments the tool does not take, and possibly required ones that were left out.
    UnknownOrMissing {
        /// Names the tool does not accept, in the order they arrived.
        unexpected: Vec<String>,
        /// Required names that were absent, in declaration order.
        missing: Vec<String>,
        /// Every name the tool accepts, sorted.
        accepted: Vec<String>,
    },
    /// The same argument appeared twice in one object.
    Duplicate {
        /// The repeated name.
        name: String,
    },
    /// An argument had the wrong JSON type.
    WrongType {
        /// The argument's name.
        name: String,
        /// What the schema allows, e.g. `a boolean`.
        expected: String,
        /// What arrived, e.g. `a string`.
        got: String,
    },
    /// An argument, or something inside it, broke a rule of its schema.
    Invalid {
        /// The argument's name.
        name: String,
        /// A JSON pointer into the argument (`/corners/0`), empty for the argument itself.
        path: String,
        /// What is wrong, e.g. `is missing required field(s) ['title']`.
        message: String,
    },
}

impl fmt::Display for ArgumentProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ArgumentProblem::NotAnObject { got } => {
                write!(f, "arguments must be a JSON object, got {got}")
            }
            ArgumentProblem::UnknownOrMissing { unexpected, missing, accepted } => {
                let mut sep = "";
                if !unexpected.is_empty() {
                    write!(f, "unexpected argument(s) {}", PyList(unexpected))?;
                    sep = "; ";
                }
                if !missing.is_empty() {
                    write!(f, "{sep}missing required argument(s) {}", PyList(missing))?;
                }
                write!(f, ". Accepted arguments: {}", PyList(accepted))
            }
            ArgumentProblem::Duplicate { name } => {
                write!(f, "argument {} was given more than once", PyStr(name))
            }
            ArgumentProblem::WrongType { name, expected, got } => {
                write!(f, "argument {} must be {expected}, got {got}", PyStr(name))
            }
            ArgumentProblem::Invalid { name, path, message } if path.is_empty() => {
                write!(f, "argument {} {message}", PyStr(name))
            }
            ArgumentProblem::Invalid { name, path, message } => {
                write!(f, "argument {} at {} {message}", PyStr(name), PyStr(path))
            }
        }
    }
}

/// A string written the way Python's `repr` writes it: `'name'`. Names in messages look the
/// same in every SDK's log, and a hostile name cannot break out of its quotes.
pub(crate) struct PyStr<'a>(pub(crate) &'a str);

impl fmt::Display for PyStr<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("'")?;
        for c in self.0.chars() {
            match c {
                '\'' => f.write_str("\\'")?,
                '\\' => f.write_str("\\\\")?,
                '\n' => f.write_str("\\n")?,
                '\r' => f.write_str("\\r")?,
                '\t' => f.write_str("\\t")?,
                c if c.is_control() => write!(f, "\\x{:02x}", c as u32)?,
                c => fmt::Write::write_char(f, c)?,
            }
        }
        f.write_str("'")
    }
}

/// A list of names written as Python writes a list of strings: `['a', 'b']`.
pub(crate) struct PyList<'a>(pub(crate) &'a [String]);

impl fmt::Display for PyList<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("[")?;
        for (i, s) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            PyStr(s).fmt(f)?;
        }
        f.write_str("]")
    }
}
