//! Parsing `#[tool(...)]`: the raw keys with their spans, then the resolved spec with the
//! defaults applied.

use proc_macro2::{Span, TokenStream};
use syn::parse::Parser;
use syn::punctuated::Punctuated;
use syn::{Expr, Lit, LitStr, Meta, Token};

use crate::ctxt::Ctxt;

/// The keys `#[tool]` accepts, for messages.
const KEYS: &str = "`name`, `title`, `description`, `side_effecting`, `read_only`, `requires_approval`, `caps`, `scopes`, `idempotent`, `open_world`, `icon`, `meta`, `inline`, `local`, `task`";

/// One key as written, with the span of its name.
pub(crate) struct Key<T> {
    pub(crate) span: Span,
    pub(crate) value: T,
}

/// The attribute as written: each key at most once, spans kept.
#[derive(Default)]
pub(crate) struct RawAttr {
    pub(crate) name: Option<Key<LitStr>>,
    pub(crate) title: Option<Key<LitStr>>,
    pub(crate) description: Option<Key<LitStr>>,
    pub(crate) side_effecting: Option<Key<bool>>,
    pub(crate) read_only: Option<Key<bool>>,
    pub(crate) requires_approval: Option<Key<bool>>,
    pub(crate) caps: Option<Key<Vec<LitStr>>>,
    pub(crate) scopes: Option<Key<Vec<LitStr>>>,
    pub(crate) idempotent: Option<Key<bool>>,
    pub(crate) open_world: Option<Key<bool>>,
    /// Every `icon`, in order (the key repeats).
    pub(crate) icons: Vec<super::about::IconSpec>,
    pub(crate) meta: Option<Key<Vec<(LitStr, Expr)>>>,
    pub(crate) inline: Option<Key<bool>>,
    pub(crate) local: Option<Key<bool>>,
    /// `task = "optional" | "required" | "forbidden"`: `Some(true)` required, `Some(false)`
    /// optional, `None` forbidden (the default).
    pub(crate) task: Option<Key<Option<bool>>>,
}

/// A likely slip, and what to write instead.
fn slip(key: &str) -> Option<&'static str> {
    Some(match key {
        "approval" | "approve" | "needs_approval" | "require_approval" | "requires_approvals" => {
            "requires_approval"
        }
        "side_effect" | "side_effects" | "sideeffecting" | "mutating" | "destructive" => "side_effecting",
        "capabilities" | "capability" | "cap" | "capset" => "caps",
        "scope" | "required_scopes" | "oauth_scopes" => "scopes",
        "readonly" | "read" | "readOnly" | "pure" => "read_only",
        "idempotency" | "idempotentHint" => "idempotent",
        "openworld" | "openWorld" | "open_world_hint" => "open_world",
        "rename" | "tool_name" => "name",
        "desc" | "doc" | "about" => "description",
        "icons" | "image" | "logo" => "icon",
        "_meta" | "metadata" => "meta",
        "not_send" | "non_send" | "nonsend" | "unsend" | "local_set" | "localset" | "spawn_local"
        | "thread_local" | "current_thread" | "pinned" => "local",
        "tasks" | "task_support" | "taskSupport" | "long_running" | "background" => "task",
        _ => return None,
    })
}

impl RawAttr {
    pub(crate) fn parse(cx: &Ctxt, args: TokenStream) -> RawAttr {
        let mut raw = RawAttr::default();
        let metas = match Punctuated::<Meta, Token![,]>::parse_terminated.parse2(args) {
            Ok(m) => m,
            Err(e) => {
                cx.syn_error(e);
                return raw;
            }
        };
        for meta in metas {
            let path = meta.path();
            let Some(ident) = path.get_ident() else {
                cx.error_spanned_by(path, format_args!("unknown tool attribute; expected one of {KEYS}"));
                continue;
            };
            let key = ident.to_string();
            let span = ident.span();
            match key.as_str() {
                "name" => set(cx, &mut raw.name, span, &key, string_value(cx, &meta, &key)),
                "title" => set(cx, &mut raw.title, span, &key, string_value(cx, &meta, &key)),
                "description" => set(cx, &mut raw.description, span, &key, string_value(cx, &meta, &key)),
                "side_effecting" => set(cx, &mut raw.side_effecting, span, &key, flag_value(cx, &meta, &key)),
                "read_only" => set(cx, &mut raw.read_only, span, &key, flag_value(cx, &meta, &key)),
                "requires_approval" => {
                    set(cx, &mut raw.requires_approval, span, &key, flag_value(cx, &meta, &key))
                }
                "idempotent" => set(cx, &mut raw.idempotent, span, &key, flag_value(cx, &meta, &key)),
                "open_world" => set(cx, &mut raw.open_world, span, &key, flag_value(cx, &meta, &key)),
                "caps" => set(cx, &mut raw.caps, span, &key, caps_value(cx, &meta)),
                "scopes" => set(cx, &mut raw.scopes, span, &key, scopes_value(cx, &meta)),
                "icon" => raw.icons.extend(super::about::icon_value(cx, &meta)),
                "meta" => set(cx, &mut raw.meta, span, &key, super::about::meta_value(cx, &meta)),
                "inline" => set(cx, &mut raw.inline, span, &key, flag_value(cx, &meta, &key)),
                "local" => set(cx, &mut raw.local, span, &key, flag_value(cx, &meta, &key)),
                "task" => set(cx, &mut raw.task, span, &key, task_value(cx, &meta)),
                other => match slip(other) {
                    Some(fix) => cx.error_at(
                        span,
                        format_args!("unknown tool attribute `{other}`; did you mean `{fix}`?"),
                    ),
                    None => cx.error_at(
                        span,
                        format_args!("unknown tool attribute `{other}`; expected one of {KEYS}"),
                    ),
                },
            }
        }
        raw
    }
}

/// Record a key, refusing a second occurrence under its own token.
fn set<T>(cx: &Ctxt, slot: &mut Option<Key<T>>, span: Span, key: &str, value: Option<T>) {
    if slot.is_some() {
        cx.error_at(span, format_args!("duplicate tool attribute `{key}`; give it once"));
        return;
    }
    if let Some(value) = value {
        *slot = Some(Key { span, value });
    }
}

/// `key = "text"`.
fn string_value(cx: &Ctxt, meta: &Meta, key: &str) -> Option<LitStr> {
    match meta {
        Meta::NameValue(nv) => match &nv.value {
            Expr::Lit(syn::ExprLit { lit: Lit::Str(s), .. }) => Some(s.clone()),
            other => {
                cx.error_spanned_by(other, format_args!("`{key}` takes a string literal: `{key} = \"...\"`"));
                None
            }
        },
        _ => {
            cx.error_spanned_by(meta, format_args!("`{key}` takes a string literal: `{key} = \"...\"`"));
            None
        }
    }
}

/// `key` alone (true) or `key = true|false`.
fn flag_value(cx: &Ctxt, meta: &Meta, key: &str) -> Option<bool> {
    match meta {
        Meta::Path(_) => Some(true),
        Meta::NameValue(nv) => match &nv.value {
            Expr::Lit(syn::ExprLit { lit: Lit::Bool(b), .. }) => Some(b.value),
            other => {
                cx.error_spanned_by(
                    other,
                    format_args!("`{key}` is a flag: write `{key}` or `{key} = false`"),
                );
                None
            }
        },
        Meta::List(list) => {
            cx.error_spanned_by(list, format_args!("`{key}` is a flag: write `{key}` or `{key} = false`"));
            None
        }
    }
}

/// `task = "optional" | "required" | "forbidden"`: whether calls may run as tasks of the
/// tasks extension. `Some(Some(true))` required, `Some(Some(false))` optional,
/// `Some(None)` forbidden.
fn task_value(cx: &Ctxt, meta: &Meta) -> Option<Option<bool>> {
    const FORM: &str = "`task` takes \"optional\", \"required\" or \"forbidden\": `task = \"optional\"`";
    let s = string_value(cx, meta, "task")?;
    match s.value().as_str() {
        "optional" => Some(Some(false)),
        "required" => Some(Some(true)),
        "forbidden" => Some(None),
        other => {
            cx.error_spanned_by(&s, format_args!("unknown task support \"{other}\"; {FORM}"));
            None
        }
    }
}

/// `caps = ["a", "b"]`.
fn caps_value(cx: &Ctxt, meta: &Meta) -> Option<Vec<LitStr>> {
    string_list(cx, meta, "`caps` takes a list of strings: `caps = [\"egress\"]`", |v| {
        // Capability tags are compared as strings by policy code; an empty or padded one
        // can never match and is a typo.
        (v.is_empty() || v.trim() != v)
            .then(|| "capability tags must be non-empty and have no surrounding spaces".to_owned())
    })
}

/// `scopes = ["files:read", "files:write"]`: OAuth scope tokens (RFC 6749 section 3.3:
/// one or more of `!`, `#`..`[`, `]`..`~`; no space, `"` or `\`).
fn scopes_value(cx: &Ctxt, meta: &Meta) -> Option<Vec<LitStr>> {
    string_list(cx, meta, "`scopes` takes a list of strings: `scopes = [\"files:write\"]`", |v| {
        let token = |c: char| c == '!' || ('#'..='[').contains(&c) || (']'..='~').contains(&c);
        (v.is_empty() || !v.chars().all(token)).then(|| {
            format!(
                "scope `{v}` is not an OAuth scope token; use printable ASCII with no space, `\"` or `\\`"
            )
        })
    })
}

/// `key = ["a", "b"]`: a list of string literals, each passed to `refuse` (which says what is
/// wrong with one, or `None`). Anything else is an error that shows `form`; every bad element
/// is reported, and the list is `None` if any was.
fn string_list(
    cx: &Ctxt,
    meta: &Meta,
    form: &str,
    refuse: impl Fn(&str) -> Option<String>,
) -> Option<Vec<LitStr>> {
    let Meta::NameValue(nv) = meta else {
        cx.error_spanned_by(meta, form);
        return None;
    };
    let Expr::Array(array) = &nv.value else {
        cx.error_spanned_by(&nv.value, form);
        return None;
    };
    let mut items = Vec::new();
    let mut ok = true;
    for elem in &array.elems {
        match elem {
            Expr::Lit(syn::ExprLit { lit: Lit::Str(s), .. }) => match refuse(&s.value()) {
                Some(message) => {
                    cx.error_spanned_by(s, message);
                    ok = false;
                }
                None => items.push(s.clone()),
            },
            other => {
                cx.error_spanned_by(other, form);
                ok = false;
            }
        }
    }
    ok.then_some(items)
}

/// The attribute with defaults applied and cross-key rules checked.
pub(crate) struct ToolAttr {
    pub(crate) name: Option<LitStr>,
    pub(crate) title: Option<LitStr>,
    pub(crate) description: Option<LitStr>,
    pub(crate) side_effecting: bool,
    pub(crate) requires_approval: bool,
    pub(crate) caps: Vec<LitStr>,
    pub(crate) scopes: Vec<LitStr>,
    pub(crate) idempotent: bool,
    pub(crate) open_world: bool,
    pub(crate) icons: Vec<super::about::IconSpec>,
    pub(crate) meta: Vec<(LitStr, Expr)>,
    /// `inline`: a sync body runs on the thread that polls the call (its span, when set).
    pub(crate) inline: Option<Span>,
    /// `local`: the body (its future need not be `Send`) runs on one of toolwire's local
    /// threads (its span, when set).
    pub(crate) local: Option<Span>,
    /// `task`: `Some(true)` required, `Some(false)` optional, `None` forbidden.
    pub(crate) task: Option<bool>,
    /// Where `task` was given as `optional` or `required`.
    pub(crate) task_span: Option<Span>,
}

impl RawAttr {
    pub(crate) fn resolve(self, cx: &Ctxt) -> ToolAttr {
        // `side_effecting` and `read_only` are one fact said two ways; both may be given
        // only if they agree.
        let side_effecting = match (&self.side_effecting, &self.read_only) {
            (Some(se), Some(ro)) => {
                if se.value == ro.value {
                    cx.error_at(
                        ro.span,
                        "`side_effecting` and `read_only` contradict each other; keep one of them",
                    );
                }
                se.value
            }
            (Some(se), None) => se.value,
            (None, Some(ro)) => !ro.value,
            // The safe default: a tool that says nothing is side-effecting.
            (None, None) => true,
        };
        if let Some(name) = &self.name {
            check_name(cx, &name.value);
        }
        let inline = self.inline.filter(|k| k.value).map(|k| k.span);
        let local = self.local.filter(|k| k.value).map(|k| k.span);
        // `inline` polls the body where the call is polled, `local` on a thread of its own:
        // one body cannot do both.
        if let (Some(_), Some(span)) = (inline, local) {
            cx.error_at(
                span,
                "`local` and `inline` contradict each other: `inline` runs the body on the thread that polls the call, `local` on a local thread of toolwire's; keep one",
            );
        }
        ToolAttr {
            name: self.name.map(|k| k.value),
            title: self.title.map(|k| k.value),
            description: self.description.map(|k| k.value),
            side_effecting,
            requires_approval: self.requires_approval.is_some_and(|k| k.value),
            caps: self.caps.map(|k| k.value).unwrap_or_default(),
            scopes: self.scopes.map(|k| k.value).unwrap_or_default(),
            idempotent: self.idempotent.is_some_and(|k| k.value),
            open_world: self.open_world.is_some_and(|k| k.value),
            icons: self.icons,
            meta: self.meta.map(|k| k.value).unwrap_or_default(),
            inline,
            local,
            task_span: self.task.as_ref().filter(|k| k.value.is_some()).map(|k| k.span),
            task: self.task.and_then(|k| k.value),
        }
    }
}

/// A tool name must match MCP's grammar `^[A-Za-z0-9_.-]{1,128}$`.
pub(crate) fn check_name(cx: &Ctxt, name: &LitStr) {
    let v = name.value();
    if !super::name::is_valid_tool_name(&v) {
        cx.error_spanned_by(
            name,
            format_args!("tool name `{v}` is not a valid MCP tool name; use 1 to 128 of `A-Z a-z 0-9 _ - .`"),
        );
    }
}
