//! [`FromContext`], how a `#[tool]` parameter is injected instead of read from the call's
//! arguments.
//!
//! `#[tool]` asks the type checker, not the type's name: a parameter whose type implements
//! `FromContext` is taken from the call's [`Context`] and never advertised; every other
//! parameter is an argument and needs `Deserialize + JsonSchema`. `&Context` and
//! [`State<T>`](crate::state::State) (a registry's state value) are the implementations here;
//! later ones (a handle on the peer) plug in the same way. [`FromArgument`] is the third
//! kind: an argument read from the call and then settled against its context
//! ([`SafePath`](crate::paths::SafePath)).
//!
//! The rest of this module is what `#[tool]` expands to, reached through `__private` (not
//! public API). It is defined here, in a module whose items are otherwise unnamed, so that
//! compile errors print its short names (`T: ToolInput<'_, ViaArguments>`) and never a hidden
//! path.

use std::convert::Infallible;
use std::fmt;

use serde_json::Value;

use crate::args::{Args, ArgumentProblem, ToolArgumentError, ToolParam};
use crate::context::{CallRequest, Context};
use crate::state::{State, StateNeed};
use crate::tool::ToolError;

/// A `#[tool]` parameter taken from the call's [`Context`] rather than from its arguments.
///
/// `#[tool]` injects every parameter whose type implements this trait and leaves it out of
/// the input schema; all other parameters are arguments. `&Context` implements it, so
/// `ctx: &Context` asks for the context itself. Implement it for your own type to hand a tool
/// something derived from the call:
///
/// ```
/// use std::convert::Infallible;
/// use toolwire::inject::FromContext;
/// use toolwire::{Context, Tool};
///
/// /// The calling client's name, or `"unknown"`.
/// struct Caller(String);
///
/// impl<'a> FromContext<'a> for Caller {
///     type Rejection = Infallible;
///
///     fn from_context(ctx: &'a Context) -> Result<Self, Infallible> {
///         Ok(Caller(ctx.peer().name.clone().unwrap_or_else(|| "unknown".into())))
///     }
/// }
///
/// /// Greet the caller.
/// #[toolwire::tool(read_only)]
/// fn greet(caller: Caller, greeting: String) -> String {
///     format!("{greeting}, {}", caller.0)
/// }
///
/// // `caller` is injected: the only argument is `greeting`.
/// assert_eq!(
///     greet {}.info().input_schema().as_str(),
///     r#"{"additionalProperties":false,"properties":{"greeting":{"type":"string"}},"required":["greeting"],"type":"object"}"#
/// );
/// ```
///
/// A rejection fails the call before the body runs, as the tool error
/// `tool '<name>' failed: <rejection>`.
///
/// A sync tool runs on the blocking pool, so its injected values are taken there, from a
/// clone of the context; an async tool takes them in place. Either way each injected
/// parameter is taken once per call, in parameter order, after the arguments were checked.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not injected into a tool",
    label = "this type does not implement `FromContext`",
    note = "a `#[tool]` parameter is injected when its type implements `toolwire::inject::FromContext` (as `&Context` does); otherwise it is an argument"
)]
pub trait FromContext<'a>: Sized {
    /// Why the value could not be taken; the call fails with this message.
    type Rejection: fmt::Display;

    /// Take the value from the call's context.
    fn from_context(ctx: &'a Context) -> Result<Self, Self::Rejection>;

    /// The registry state this value is taken from, if any. A tool with such a parameter
    /// declares the need ([`ToolInfo::state_needs`](crate::tool::ToolInfo::state_needs)), and a
    /// registry that was not given the state refuses the tool when it is built. `None` (the
    /// default) for a value the context alone provides.
    fn state_need() -> Option<StateNeed> {
        None
    }
}

/// A registry's state value, taken from the call's context.
impl<'a, T: Send + Sync + 'static> FromContext<'a> for State<T> {
    type Rejection = MissingState;

    #[inline]
    fn from_context(ctx: &'a Context) -> Result<Self, MissingState> {
        ctx.state::<T>().ok_or(MissingState { type_name: std::any::type_name::<T>() })
    }

    fn state_need() -> Option<StateNeed> {
        Some(StateNeed::of::<T>())
    }
}

/// A call's context holds no state of the type a [`State<T>`] parameter asks for.
///
/// A registry refuses such a tool when it is built, so this is only seen when a tool is
/// called by hand with a context that was not given the registry's state.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("no state `{type_name}` was provided to this call's context")]
#[non_exhaustive]
pub struct MissingState {
    /// The type asked for.
    pub type_name: &'static str,
}

/// A `#[tool]` argument that is read from the call's arguments and then settled against the
/// call's [`Context`] before the body runs: an argument whose meaning depends on the host.
///
/// The argument is advertised and validated as its [`Raw`](FromArgument::Raw) type (its schema
/// is `Raw`'s), deserialized into it, and then [`from_argument`](FromArgument::from_argument)
/// turns it into `Self`. A refusal is an argument error, like any other, naming the tool and
/// the argument: `tool 'read' call rejected: argument 'path' <refusal>`. The value is settled
/// where the body runs (a sync tool's worker thread), so it may touch the file system.
///
/// [`SafePath`](crate::paths::SafePath) is the implementation here: a path string, checked
/// against the roots the host allows. A type that implements this trait should not also
/// implement `Deserialize`, so it cannot be read as a plain argument by mistake.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not an argument settled against the call",
    label = "this type does not implement `FromArgument`"
)]
pub trait FromArgument: Sized + Send + 'static {
    /// What the call's argument is deserialized into, and advertised as.
    type Raw: ToolParam;

    /// Why the argument was refused; the message follows `argument '<name>' `.
    type Rejection: fmt::Display;

    /// Settle the argument against the call.
    fn from_argument(raw: Self::Raw, ctx: &Context) -> Result<Self, Self::Rejection>;

    /// The registry state this argument is settled with, if any: declared by the tool, so a
    /// registry without it refuses the tool when it is built.
    fn state_need() -> Option<StateNeed> {
        None
    }
}

/// An optional settled argument: absent stays `None`.
impl<T: FromArgument> FromArgument for Option<T> {
    type Raw = Option<T::Raw>;
    type Rejection = T::Rejection;

    fn from_argument(raw: Option<T::Raw>, ctx: &Context) -> Result<Self, T::Rejection> {
        raw.map(|raw| T::from_argument(raw, ctx)).transpose()
    }

    fn state_need() -> Option<StateNeed> {
        T::state_need()
    }
}

/// The request the call came in: its id, session, `_meta`, client name and HTTP headers.
impl<'a> FromContext<'a> for CallRequest<'a> {
    type Rejection = Infallible;

    #[inline]
    fn from_context(ctx: &'a Context) -> Result<Self, Infallible> {
        Ok(ctx.request())
    }
}

impl<'a> FromContext<'a> for &'a Context {
    type Rejection = Infallible;

    #[inline]
    fn from_context(ctx: &'a Context) -> Result<Self, Infallible> {
        Ok(ctx)
    }
}

// ---- What `#[tool]` expands to -------------------------------------------------------
//
// Every parameter goes through `ToolInput`, implemented by its kind, which the expansion got
// from an autoref probe (`__private::probes::KindInjected`): `ViaContext` when the type
// implements `FromContext`, `ViaArguments` otherwise. The expansion names the parameter's type
// as `Self` and lets the kind be inferred from the value (`<T as ToolInput<'_, _>>::seed(kind,
// ..)`): with the user's type as `Self`, an error is about that type and carries this trait's
// message. Each use is spanned at the type, and the three uses are one obligation, so a type
// that is neither is reported once, under that type, naming the missing `Deserialize` or
// `JsonSchema`. Every method is `#[inline]` and monomorphic per parameter: an argument is
// `args.take::<T>(i)` as before, `&Context` is the context itself.

/// The kind of a parameter whose type implements [`FromContext`].
#[derive(Debug, Clone, Copy)]
pub struct ViaContext;

/// The kind of every other parameter: an argument of the call.
#[derive(Debug, Clone, Copy)]
pub struct ViaArguments;

/// The kind of a parameter whose type implements [`FromArgument`]: an argument of the call,
/// settled against its context.
#[derive(Debug, Clone, Copy)]
pub struct ViaSettledArgument;

/// Where an argument's facts go when a tool's statics are built.
pub trait Describe {
    /// One argument: its wire name, doc comment, whether it may be left out, and the default
    /// to advertise.
    fn argument<T: ToolParam>(
        &mut self,
        name: &'static str,
        doc: &'static str,
        optional: bool,
        default: Option<Value>,
    );

    /// An injected parameter that is taken from the registry's state.
    fn state(&mut self, need: StateNeed) {
        let _ = need;
    }

    /// An injected parameter (taken from the call's context, which holds the request the
    /// call came in): said once for each, before [`state`](Self::state).
    fn injected(&mut self) {}
}

/// How a parameter of kind `K` is described once and taken on each call, implemented by the
/// parameter's type.
///
/// Taking is split in two so a sync body can run on the blocking pool: `seed` runs where the
/// arguments are (it reads an argument, and for an injected value does nothing), and `finish`
/// runs where the body runs, with a context it may borrow from.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a tool parameter",
    label = "this type must implement `serde::Deserialize` (owned) and `schemars::JsonSchema`, or `toolwire::inject::FromContext`",
    note = "derive them: `#[derive(serde::Deserialize, schemars::JsonSchema)]`; borrowed types such as `&str` become their owned forms (`String`); a type that implements `toolwire::inject::FromContext` is injected instead"
)]
pub trait ToolInput<'a, K>: Sized {
    /// What [`seed`](ToolInput::seed) hands to [`finish`](ToolInput::finish).
    type Seed: Send + 'static;

    /// Add the parameter to the tool's schema, if it is an argument.
    fn describe(
        kind: K,
        describer: &mut impl Describe,
        name: &'static str,
        doc: &'static str,
        optional: bool,
        default: Option<Value>,
    );

    /// Read the argument (advancing `next`, the index of the next argument), or nothing.
    fn seed(kind: K, args: &Args<'_, '_>, next: &mut usize) -> Result<Self::Seed, ToolArgumentError>;

    /// [`seed`](ToolInput::seed), with `default` for an absent argument.
    fn seed_or_else(
        kind: K,
        args: &Args<'_, '_>,
        next: &mut usize,
        default: impl FnOnce() -> Self,
    ) -> Result<Self::Seed, ToolArgumentError>;

    /// The value the body is called with.
    fn finish(kind: K, seed: Self::Seed, ctx: &'a Context, tool: &str) -> Result<Self, ToolError>;
}

impl<'a, T: ToolParam> ToolInput<'a, ViaArguments> for T {
    type Seed = T;

    #[inline]
    fn describe(
        _: ViaArguments,
        describer: &mut impl Describe,
        name: &'static str,
        doc: &'static str,
        optional: bool,
        default: Option<Value>,
    ) {
        describer.argument::<T>(name, doc, optional, default);
    }

    #[inline]
    fn seed(_: ViaArguments, args: &Args<'_, '_>, next: &mut usize) -> Result<T, ToolArgumentError> {
        let index = *next;
        *next += 1;
        args.take::<T>(index)
    }

    #[inline]
    fn seed_or_else(
        _: ViaArguments,
        args: &Args<'_, '_>,
        next: &mut usize,
        default: impl FnOnce() -> T,
    ) -> Result<T, ToolArgumentError> {
        let index = *next;
        *next += 1;
        match args.raw(index) {
            Some(raw) => args.parse::<T>(index, raw),
            None => Ok(default()),
        }
    }

    #[inline]
    fn finish(_: ViaArguments, seed: T, _: &'a Context, _: &str) -> Result<T, ToolError> {
        Ok(seed)
    }
}

impl<'a, T: FromContext<'a>> ToolInput<'a, ViaContext> for T {
    type Seed = ();

    #[inline]
    fn describe(
        _: ViaContext,
        describer: &mut impl Describe,
        _: &'static str,
        _: &'static str,
        _: bool,
        _: Option<Value>,
    ) {
        describer.injected();
        if let Some(need) = T::state_need() {
            describer.state(need);
        }
    }

    #[inline]
    fn seed(_: ViaContext, _: &Args<'_, '_>, _: &mut usize) -> Result<(), ToolArgumentError> {
        Ok(())
    }

    #[inline]
    fn seed_or_else(
        _: ViaContext,
        _: &Args<'_, '_>,
        _: &mut usize,
        _: impl FnOnce() -> T,
    ) -> Result<(), ToolArgumentError> {
        Ok(())
    }

    #[inline]
    fn finish(_: ViaContext, _: (), ctx: &'a Context, tool: &str) -> Result<T, ToolError> {
        T::from_context(ctx).map_err(|e| ToolError::failed(tool, e))
    }
}

/// What a [`FromArgument`] parameter's `seed` hands to its `finish`: the raw argument and its
/// name, or the tool's own default (a value the host wrote, used as it is).
#[derive(Debug)]
pub enum SettleSeed<T: FromArgument> {
    /// The call gave the argument.
    Given(T::Raw, std::borrow::Cow<'static, str>),
    /// The call left it out and the tool has a default.
    Default(T),
}

impl<'a, T: FromArgument> ToolInput<'a, ViaSettledArgument> for T {
    type Seed = SettleSeed<T>;

    #[inline]
    fn describe(
        _: ViaSettledArgument,
        describer: &mut impl Describe,
        name: &'static str,
        doc: &'static str,
        optional: bool,
        default: Option<Value>,
    ) {
        describer.argument::<T::Raw>(name, doc, optional, default);
        if let Some(need) = T::state_need() {
            describer.state(need);
        }
    }

    #[inline]
    fn seed(
        _: ViaSettledArgument,
        args: &Args<'_, '_>,
        next: &mut usize,
    ) -> Result<SettleSeed<T>, ToolArgumentError> {
        let index = *next;
        *next += 1;
        Ok(SettleSeed::Given(args.take::<T::Raw>(index)?, args.name(index)))
    }

    #[inline]
    fn seed_or_else(
        _: ViaSettledArgument,
        args: &Args<'_, '_>,
        next: &mut usize,
        default: impl FnOnce() -> T,
    ) -> Result<SettleSeed<T>, ToolArgumentError> {
        let index = *next;
        *next += 1;
        match args.raw(index) {
            Some(raw) => Ok(SettleSeed::Given(args.parse::<T::Raw>(index, raw)?, args.name(index))),
            None => Ok(SettleSeed::Default(default())),
        }
    }

    #[inline]
    fn finish(
        _: ViaSettledArgument,
        seed: SettleSeed<T>,
        ctx: &'a Context,
        tool: &str,
    ) -> Result<T, ToolError> {
        match seed {
            SettleSeed::Given(raw, name) => T::from_argument(raw, ctx).map_err(|e| {
                ToolError::Arguments(ToolArgumentError {
                    tool: tool.to_owned(),
                    problem: ArgumentProblem::Invalid {
                        name: name.into_owned(),
                        path: String::new(),
                        message: e.to_string(),
                    },
                })
            }),
            SettleSeed::Default(value) => Ok(value),
        }
    }
}

// Two kinds no probe returns, each with an impl for every type. They are never used; they are
// here so that while the checker does not yet know a parameter's kind, `T: ToolInput<'_, _>`
// has more than one impl that could apply and is left open, instead of being judged (and
// reported) early as `T` implementing none. Once the kind is known it is judged once.
#[doc(hidden)]
#[derive(Debug, Clone, Copy)]
pub enum Unreachable1 {}
#[doc(hidden)]
#[derive(Debug, Clone, Copy)]
pub enum Unreachable2 {}

macro_rules! unreachable_kind {
    ($kind:ty) => {
        impl<'a, T> ToolInput<'a, $kind> for T {
            type Seed = ();
            fn describe(
                k: $kind,
                _: &mut impl Describe,
                _: &'static str,
                _: &'static str,
                _: bool,
                _: Option<Value>,
            ) {
                match k {}
            }
            fn seed(k: $kind, _: &Args<'_, '_>, _: &mut usize) -> Result<(), ToolArgumentError> {
                match k {}
            }
            fn seed_or_else(
                k: $kind,
                _: &Args<'_, '_>,
                _: &mut usize,
                _: impl FnOnce() -> T,
            ) -> Result<(), ToolArgumentError> {
                match k {}
            }
            fn finish(k: $kind, _: (), _: &'a Context, _: &str) -> Result<T, ToolError> {
                match k {}
            }
        }
    };
}
unreachable_kind!(Unreachable1);
unreachable_kind!(Unreachable2);
