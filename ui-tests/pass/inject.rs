//! Injection is by trait: `&Context` and a user type implementing `FromContext` are taken
//! from the call, in any position, sync or async, and never advertised.
use std::convert::Infallible;

use toolwire::inject::FromContext;
use toolwire::{Context, Tool, tool};

/// The calling client's name.
struct Caller(String);

impl<'a> FromContext<'a> for Caller {
    type Rejection = Infallible;

    fn from_context(ctx: &'a Context) -> Result<Self, Infallible> {
        Ok(Caller(ctx.peer().name.clone().unwrap_or_else(|| "unknown".into())))
    }
}

/// A value that can never be taken: the call fails before the body runs.
struct Refused;

impl<'a> FromContext<'a> for Refused {
    type Rejection = &'static str;

    fn from_context(_: &'a Context) -> Result<Self, &'static str> {
        Err("no handle here")
    }
}

/// A user type, between arguments, in an async fn.
#[tool(read_only)]
async fn a(greeting: String, caller: Caller, ctx: &Context, n: Option<bool>) -> String {
    format!("{greeting} {} {} {n:?}", caller.0, ctx.is_cancelled())
}

/// Both, in a sync fn; two contexts are the same context.
#[tool(read_only)]
fn b(ctx: &Context, caller: Caller, again: &Context) -> String {
    format!("{} {}", caller.0, std::ptr::eq(ctx, again) || ctx.is_cancelled() == again.is_cancelled())
}

/// A rejection.
#[tool(read_only)]
fn c(_refused: Refused) {}

#[tokio::main]
async fn main() {
    let ctx = Context::new();
    let out = a {}.call_json(serde_json::json!({"greeting": "hi", "n": true}), &ctx).await.unwrap();
    assert_eq!(out.joined_text(), "hi unknown false Some(true)");
    assert_eq!(
        a {}.info().input_schema().as_str(),
        r#"{"additionalProperties":false,"properties":{"greeting":{"type":"string"},"n":{"type":["boolean","null"]}},"required":["greeting"],"type":"object"}"#
    );
    assert_eq!(b {}.call_json(serde_json::json!({}), &ctx).await.unwrap().joined_text(), "unknown true");
    assert_eq!(b {}.info().input_schema().as_str(), r#"{"additionalProperties":false,"type":"object"}"#);
    let err = c {}.call_json(serde_json::json!({}), &ctx).await.unwrap_err();
    assert_eq!(err.to_string(), "tool 'c' failed: no handle here");
}
