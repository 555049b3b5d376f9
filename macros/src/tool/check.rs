//! Rules that span the attribute and the signature, each checked once, with the error under
//! the offending token.

use std::collections::BTreeSet;

use super::ast::{Kind, ToolFn};
use crate::ctxt::Ctxt;
use crate::signature::Shape;

pub(crate) fn signature(cx: &Ctxt, f: &ToolFn) {
    let sig = &f.item.sig;

    // A tool's schema is fixed when it is compiled, so its fn cannot be generic.
    crate::signature::check_shape(
        cx,
        sig,
        &Shape {
            attr: "`#[tool]`",
            why_concrete: "a tool's schema is fixed at compile time, so name concrete types",
            caller: "a model",
        },
    );

    // Argument names are unique on the wire, after renaming. Whether a parameter left to its
    // type is injected is only known to the type checker, so its name counts here too.
    let mut names: BTreeSet<&str> = BTreeSet::new();
    for p in &f.inputs {
        if p.kind == Kind::Injected || p.wire_name.is_empty() {
            continue;
        }
        if !names.insert(&p.wire_name) {
            cx.error_at(
                p.name_span,
                format_args!(
                    "duplicate argument name `{}` (after renaming); each argument needs its own name",
                    p.wire_name
                ),
            );
        }
    }
}
