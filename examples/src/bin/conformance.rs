//! The conformance example server: the fixture tools, resources and prompts of the official
//! MCP conformance suite (`@modelcontextprotocol/conformance`), served over loopback
//! streamable HTTP (`toolwire::http::mcp_router`), or over stdio with `--stdio`.
//!
//! ```text
//! cargo run -p toolwire-examples --bin conformance -- --port 0
//! cargo run -p toolwire-examples --bin conformance -- --stdio
//! ```
//!
//! Over HTTP it prints its URL (`http://127.0.0.1:P/mcp`) as the one line on stdout, then
//! serves until stdin closes or it is killed. Auth is off: the suite cannot know a generated
//! token. `tests/tests/conformance.rs` runs the suite against it, and
//! `tests/conformance/README.md` says which scenario passes and why the others do not;
//! `tests/tests/resource_interop.rs` drives it with the TypeScript SDK v2 and rmcp clients
//! over both transports.
//!
//! Each tool is what the suite's scenario text asks for, word for word where it gives the
//! words. The logging, sampling and elicitation tools talk back through [`Context`]: in a
//! legacy session by requests to the client, in a 2026-07-28 call by `input_required`
//! rounds (the `test_input_required_result_*` tools and prompt; see `toolwire::context`).

use std::time::Duration;

use serde_json::json;
use serde_json::value::RawValue;
use toolwire::ServerOptions;
use toolwire::complete::{CompletionRequest, prefix_matches};
use toolwire::context::{AskError, SamplingRequest};
use toolwire::http::{Auth, HttpConfig, mcp_router};
use toolwire::prompt::{ContentBlock, PromptMessage, ResourceContents};
use toolwire::protocol::LoggingLevel;
use toolwire::skills::SkillCatalog;
use toolwire::tool::{EmbeddedResource, ToolFuture};
use toolwire::{
    Content, Context, Declarations, Schema, Server, Tool, ToolInfo, ToolOutput, prompt, prompts, resource,
    resources, tool, tools,
};

/// A 1x1 red pixel, PNG.
const RED_PIXEL_PNG: &str =
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC";
/// One millisecond of 8 kHz, 8-bit mono silence, WAV.
const SILENCE_WAV: &str = "UklGRiwAAABXQVZFZm10IBAAAAABAAEAQB8AAEAfAAABAAgAZGF0YQgAAACAgICAgICAgA==";

/// Return a simple text response.
#[tool(read_only)]
fn test_simple_text() -> &'static str {
    "This is a simple text response for testing."
}

/// Return a 1x1 red PNG image.
#[tool(read_only)]
fn test_image_content() -> ToolOutput {
    ToolOutput::from_content(vec![image()])
}

/// Return a short WAV clip.
#[tool(read_only)]
fn test_audio_content() -> ToolOutput {
    ToolOutput::from_content(vec![Content::Audio {
        data: SILENCE_WAV.to_owned(),
        mime_type: "audio/wav".to_owned(),
    }])
}

/// Return an embedded text resource.
#[tool(read_only)]
fn test_embedded_resource() -> ToolOutput {
    ToolOutput::from_content(vec![Content::Resource {
        resource: EmbeddedResource::text("test://embedded-resource", "This is an embedded resource content.")
            .with_mime_type("text/plain"),
    }])
}

/// Return text, an image and an embedded resource in one result.
#[tool(read_only)]
fn test_multiple_content_types() -> ToolOutput {
    ToolOutput::from_content(vec![
        Content::text("Multiple content types test:"),
        image(),
        Content::Resource {
            resource: EmbeddedResource::text(
                "test://mixed-content-resource",
                r#"{"test":"data","value":123}"#,
            )
            .with_mime_type("application/json"),
        },
    ])
}

/// Always fail, as a tool error (`isError: true`).
#[tool(read_only)]
fn test_error_handling() -> Result<String, String> {
    Err("This tool intentionally returns an error for testing".to_owned())
}

/// Report progress 0/100, 50/100 and 100/100, about 50 ms apart.
#[tool(read_only)]
async fn test_tool_with_progress(ctx: &Context) -> String {
    for (i, step) in [0.0, 50.0, 100.0].into_iter().enumerate() {
        if i > 0 {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        ctx.report_progress(step, Some(100.0), None);
    }
    "Progress test completed".to_owned()
}

/// Send three info logs, about 50 ms apart.
#[tool(read_only)]
async fn test_tool_with_logging(ctx: &Context) -> String {
    for (i, text) in
        ["Tool execution started", "Tool processing data", "Tool execution completed"].into_iter().enumerate()
    {
        if i > 0 {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        ctx.log(LoggingLevel::Info, text);
    }
    "Logging test completed".to_owned()
}

/// Take a second to answer, sending nothing first: over legacy HTTP the server closes the
/// answer's stream after its priming event (`HttpConfig::sse_polling`, SEP-1699) and the
/// client gets the result by resuming the stream with `Last-Event-ID`.
#[tool(read_only)]
async fn test_reconnection() -> &'static str {
    tokio::time::sleep(Duration::from_secs(1)).await;
    "Reconnection test completed"
}

/// Ask the client's model to complete `prompt`.
#[tool(read_only)]
async fn test_sampling(ctx: &Context, prompt: String) -> Result<String, AskError> {
    let sampled = ctx.sample(SamplingRequest::new(100).user(prompt)).await?;
    Ok(format!("LLM response: {}", sampled.text().unwrap_or_default()))
}

/// Ask the user for a username and an email address, showing `message`.
#[tool(read_only)]
async fn test_elicitation(ctx: &Context, message: String) -> Result<String, AskError> {
    let schema = json!({
        "type": "object",
        "properties": {
            "username": {"type": "string", "description": "User's response"},
            "email": {"type": "string", "description": "User's email address"}
        },
        "required": ["username", "email"]
    });
    elicitation_text(ctx.elicit_with_schema(&message, schema).await, "User response: ")
}

/// Elicit a form with a default for every primitive type (SEP-1034).
#[tool(read_only)]
async fn test_elicitation_sep1034_defaults(ctx: &Context) -> Result<String, AskError> {
    let schema = json!({
        "type": "object",
        "properties": {
            "name": {"type": "string", "description": "User name", "default": "John Doe"},
            "age": {"type": "integer", "description": "User age", "default": 30},
            "score": {"type": "number", "description": "User score", "default": 95.5},
            "status": {"type": "string", "description": "User status", "enum": ["active", "inactive", "pending"], "default": "active"},
            "verified": {"type": "boolean", "description": "Verification status", "default": true}
        },
        "required": []
    });
    let answer =
        ctx.elicit_with_schema("Please review and update the form fields with defaults", schema).await;
    elicitation_text(answer, "Elicitation completed: ")
}

/// Elicit a form with the five enum shapes of SEP-1330.
#[tool(read_only)]
async fn test_elicitation_sep1330_enums(ctx: &Context) -> Result<String, AskError> {
    let schema = json!({
        "type": "object",
        "properties": {
            "untitledSingle": {"type": "string", "enum": ["option1", "option2", "option3"]},
            "titledSingle": {"type": "string", "oneOf": [
                {"const": "value1", "title": "First Option"},
                {"const": "value2", "title": "Second Option"},
                {"const": "value3", "title": "Third Option"}
            ]},
            "legacyEnum": {"type": "string", "enum": ["opt1", "opt2", "opt3"], "enumNames": ["Option One", "Option Two", "Option Three"]},
            "untitledMulti": {"type": "array", "items": {"type": "string", "enum": ["option1", "option2", "option3"]}},
            "titledMulti": {"type": "array", "items": {"anyOf": [
                {"const": "value1", "title": "First Choice"},
                {"const": "value2", "title": "Second Choice"},
                {"const": "value3", "title": "Third Choice"}
            ]}}
        },
        "required": []
    });
    let answer = ctx.elicit_with_schema("Please select options from the enum fields", schema).await;
    elicitation_text(answer, "Elicitation completed: ")
}

/// A name, as the input-required scenarios ask for it.
#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Name {
    name: String,
}

/// Ask the user's name (`user_name`), then greet them (SEP-2322).
#[tool(read_only)]
async fn test_input_required_result_elicitation(ctx: &Context) -> Result<String, AskError> {
    let who: Name = ctx.elicit_as("user_name", "What is your name?").await?;
    Ok(format!("Hello, {}!", who.name))
}

/// Ask the client's model the capital of France (`capital_question`).
#[tool(read_only)]
async fn test_input_required_result_sampling(ctx: &Context) -> Result<String, AskError> {
    let asked = SamplingRequest::new(100).user("What is the capital of France?");
    let sampled = ctx.sample_as("capital_question", asked).await?;
    Ok(format!("The model said: {}", sampled.text().unwrap_or_default()))
}

/// Ask for the client's roots (`client_roots`) and name them.
#[tool(read_only)]
async fn test_input_required_result_list_roots(ctx: &Context) -> Result<String, AskError> {
    let roots = ctx.roots_as("client_roots").await?;
    let uris: Vec<&str> = roots.roots.iter().map(|r| r.uri.as_str()).collect();
    Ok(format!("The client has {} roots: {}", uris.len(), uris.join(", ")))
}

/// A confirmation, as the request-state scenario asks for it.
#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Confirm {
    ok: bool,
}

/// Ask for a confirmation (`confirm`); the answer comes back with the sealed state, which
/// the engine checked before this body ran again.
#[tool(read_only)]
async fn test_input_required_result_request_state(ctx: &Context) -> Result<String, AskError> {
    let confirm: Confirm = ctx.elicit_as("confirm", "Please confirm").await?;
    Ok(format!("state-ok: confirmed={}", confirm.ok))
}

/// Ask for a name, a greeting and the roots at once: one round with three input requests.
#[tool(read_only)]
async fn test_input_required_result_multiple_inputs(ctx: &Context) -> Result<String, AskError> {
    let (who, greeting, roots) = tokio::join!(
        ctx.elicit_as::<Name>("user_name", "What is your name?"),
        ctx.sample_as("greeting", SamplingRequest::new(50).user("Generate a greeting")),
        ctx.roots_as("client_roots"),
    );
    let (who, greeting, roots) = (who?, greeting?, roots?);
    Ok(format!("{} {} ({} roots)", greeting.text().unwrap_or_default(), who.name, roots.roots.len()))
}

/// A favourite colour, as the multi-round scenario asks for it.
#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Colour {
    color: String,
}

/// Ask a name (`step1`), then, in a second round, a colour (`step2`).
#[tool(read_only)]
async fn test_input_required_result_multi_round(ctx: &Context) -> Result<String, AskError> {
    let who: Name = ctx.elicit_as("step1", "Step 1: What is your name?").await?;
    let colour: Colour = ctx.elicit_as("step2", "Step 2: What is your favorite color?").await?;
    Ok(format!("{} likes {}", who.name, colour.color))
}

/// Ask for a confirmation; a retry with an altered state is refused by the engine.
#[tool(read_only)]
async fn test_input_required_result_tampered_state(ctx: &Context) -> Result<String, AskError> {
    let confirm: Confirm = ctx.elicit_as("confirm", "Please confirm").await?;
    Ok(format!("confirmed={}", confirm.ok))
}

/// Ask for what the client can answer: a summary from its model if it samples, the user's
/// name if it elicits. An ask the client did not declare is refused at once (nothing is
/// sent), so only the others go into the round.
#[tool(read_only)]
async fn test_input_required_result_capabilities(ctx: &Context) -> Result<String, AskError> {
    let (summary, who) = tokio::join!(
        ctx.sample_as("summary", SamplingRequest::new(50).user("Summarise the day")),
        ctx.elicit_as::<Name>("user_name", "What is your name?"),
    );
    let summary = summary.map(|s| s.text().unwrap_or_default().to_owned());
    let who = who.map(|w| w.name);
    Ok(format!(
        "summary: {}; name: {}",
        summary.unwrap_or_else(|e| e.to_string()),
        who.unwrap_or_else(|e| e.to_string())
    ))
}

/// Ask the client's model something: only a client that samples may call it (the engine
/// answers -32021 to one that does not declare `sampling`).
struct MissingCapability {
    info: ToolInfo,
}

impl Tool for MissingCapability {
    fn info(&self) -> &ToolInfo {
        &self.info
    }

    fn call<'a>(&'a self, _arguments: &'a RawValue, ctx: &'a Context) -> ToolFuture<'a> {
        Box::pin(async move {
            let sampled = ctx
                .sample_as("answer", SamplingRequest::new(50).user("Say hello"))
                .await
                .map_err(|e| toolwire::ToolError::failed("test_missing_capability", e))?;
            Ok(ToolOutput::text(sampled.text().unwrap_or_default()))
        })
    }
}

fn test_missing_capability() -> MissingCapability {
    let info = ToolInfo::new(
        "test_missing_capability",
        "Ask the client's model; needs sampling.",
        Schema::empty_object(),
    )
    .with_declarations(Declarations::read_only())
    .requires_client(toolwire::protocol::ClientCapability::Sampling);
    MissingCapability { info }
}

/// Report progress, then ask the user a question: in 2026-07-28 the question is the
/// `input_required` result at the end of the call's stream, never a request of its own.
#[tool(read_only)]
async fn test_streaming_elicitation(ctx: &Context) -> Result<String, AskError> {
    ctx.report_progress(1.0, Some(2.0), Some("about to ask"));
    let who: Name = ctx.elicit_as("user_name", "What is your name?").await?;
    Ok(format!("Hello, {}!", who.name))
}

/// Log at info: sent only when the request asked for logs (`logLevel` in its `_meta`).
#[tool(read_only)]
async fn test_logging_tool(ctx: &Context) -> String {
    ctx.log(LoggingLevel::Info, "test_logging_tool ran");
    "Logged".to_owned()
}

/// A prompt that needs context from the user first (SEP-2322, on `prompts/get`).
#[prompt]
async fn test_input_required_result_prompt(ctx: &Context) -> Result<String, AskError> {
    #[derive(serde::Deserialize, schemars::JsonSchema)]
    struct UserContext {
        context: String,
    }
    let answer: UserContext = ctx.elicit_as("user_context", "What context should the prompt use?").await?;
    Ok(format!("Use this context: {}", answer.context))
}

/// The suite's result text for an elicitation: the action, and the content on accept.
fn elicitation_text(
    answer: Result<serde_json::Map<String, serde_json::Value>, AskError>,
    prefix: &str,
) -> Result<String, AskError> {
    match answer {
        Ok(content) => Ok(format!("{prefix}action=accept, content={}", serde_json::Value::Object(content))),
        Err(AskError::Declined { .. }) => Ok(format!("{prefix}action=decline, content={{}}")),
        Err(AskError::Cancelled { .. }) => Ok(format!("{prefix}action=cancel, content={{}}")),
        Err(other) => Err(other),
    }
}

fn image() -> Content {
    Content::Image { data: RED_PIXEL_PNG.to_owned(), mime_type: "image/png".to_owned() }
}

/// A hand-written [`Tool`] with an exact input schema: for the fixtures whose schema no Rust
/// type derives. It accepts whatever it is given and says what it got.
struct SchemaTool {
    info: ToolInfo,
}

impl SchemaTool {
    fn new(name: &'static str, description: &'static str, schema: serde_json::Value) -> SchemaTool {
        let info = ToolInfo::new(name, description, Schema::from_value(schema))
            .with_declarations(Declarations::read_only());
        SchemaTool { info }
    }
}

impl Tool for SchemaTool {
    fn info(&self) -> &ToolInfo {
        &self.info
    }

    fn call<'a>(&'a self, arguments: &'a RawValue, _ctx: &'a Context) -> ToolFuture<'a> {
        Box::pin(async move { Ok(ToolOutput::text(format!("received {}", arguments.get()))) })
    }
}

/// `json_schema_2020_12_tool`: the schema 0.2.0-alpha.12 checks is kept whole (`$schema`,
/// `$defs` with an `$anchor`, `allOf`/`anyOf`, `if`/`then`/`else`).
fn json_schema_2020_12_tool() -> SchemaTool {
    SchemaTool::new(
        "json_schema_2020_12_tool",
        "Tool with JSON Schema 2020-12 features",
        json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object",
            "$defs": {
                "address": {
                    "$anchor": "addressDef",
                    "type": "object",
                    "properties": {"street": {"type": "string"}, "city": {"type": "string"}}
                }
            },
            "properties": {
                "name": {"type": "string"},
                "address": {"$ref": "#/$defs/address"},
                "contactMethod": {"type": "string", "enum": ["phone", "email"]},
                "phone": {"type": "string"},
                "email": {"type": "string"}
            },
            "allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
            "if": {"properties": {"contactMethod": {"const": "phone"}}, "required": ["contactMethod"]},
            "then": {"required": ["phone"]},
            "else": {"required": ["email"]},
            "additionalProperties": false
        }),
    )
}

/// `test_header_param`: a parameter mirrored into the `Mcp-Param-Region` header
/// (`x-mcp-header`, 2026-07-28), which the transport checks against the body.
fn test_header_param() -> SchemaTool {
    SchemaTool::new(
        "test_header_param",
        "Echo the region, which clients also send as the Mcp-Param-Region header",
        json!({
            "type": "object",
            "properties": {"region": {"type": "string", "description": "Where to run", "x-mcp-header": "Region"}},
            "required": ["region"]
        }),
    )
}

fn usage() -> ! {
    eprintln!("usage: conformance [--port P | --stdio]   (P = 0, the default, picks a free port)");
    std::process::exit(2);
}

/// A static text resource for testing.
#[resource(uri = "test://static-text", name = "static-text", mime_type = "text/plain")]
fn static_text() -> &'static str {
    "This is the content of the static text resource."
}

/// A static binary resource (a 1x1 red PNG) for testing.
#[resource(uri = "test://static-binary", name = "static-binary", mime_type = "image/png")]
fn static_binary() -> Vec<u8> {
    base64_decode(RED_PIXEL_PNG)
}

/// A resource that can be subscribed to.
#[resource(uri = "test://watched-resource", name = "watched-resource", mime_type = "text/plain")]
fn watched_resource() -> &'static str {
    "Watched resource content"
}

/// A resource template with parameter substitution.
#[resource(template = "test://template/{id}/data", name = "template", mime_type = "application/json")]
fn template_data(id: String) -> String {
    // The suite's words, key order included (a `Json` value would sort the keys).
    format!(r#"{{"id":"{id}","templateTest":true,"data":"Data for ID: {id}"}}"#)
}

/// Decode standard base64 (the fixtures' own constants; panics on anything else).
fn base64_decode(text: &str) -> Vec<u8> {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = Vec::with_capacity(text.len() * 3 / 4);
    let (mut acc, mut bits) = (0u32, 0u32);
    for c in text.bytes().filter(|&c| c != b'=') {
        let v = ALPHABET.iter().position(|&a| a == c).expect("a base64 constant") as u32;
        acc = (acc << 6) | v;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
        }
    }
    out
}

/// A simple prompt for testing.
#[prompt]
fn test_simple_prompt() -> &'static str {
    "This is a simple prompt for testing."
}

/// A prompt with two arguments.
#[prompt(complete(arg1 = complete_arg1))]
fn test_prompt_with_arguments(
    /// First test argument.
    arg1: String,
    /// Second test argument.
    arg2: String,
) -> String {
    format!("Prompt with arguments: arg1='{arg1}', arg2='{arg2}'")
}

/// Completion for `arg1`: a few words, by prefix.
fn complete_arg1(request: CompletionRequest) -> Vec<String> {
    prefix_matches(["paris", "park", "party", "test", "testing"], &request.value)
}

/// A prompt embedding a resource.
#[prompt]
fn test_prompt_with_embedded_resource(
    /// URI of the resource to embed.
    #[allow(non_snake_case)]
    resourceUri: String,
) -> Vec<PromptMessage> {
    vec![
        PromptMessage::new(
            "user",
            ContentBlock::resource(
                ResourceContents::text(resourceUri, "Embedded resource content for testing.")
                    .with_mime_type("text/plain"),
            ),
        ),
        PromptMessage::user("Please process the embedded resource above."),
    ]
}

/// A prompt showing an image.
#[prompt]
fn test_prompt_with_image() -> Vec<PromptMessage> {
    vec![
        PromptMessage::new("user", ContentBlock::image(RED_PIXEL_PNG, "image/png")),
        PromptMessage::user("Please analyze the image above."),
    ]
}

// ─── The tasks extension (SEP-2663): the fixtures of the suite's `tasks-*` scenarios ───
//
// A tool with `task = ..` becomes a task once its body first waits on something other than
// the client (module `toolwire::server`'s tasks; README "Long-running tools"): so the asks
// `confirm_delete` and `multi_input` make after their first wait are the task's
// `inputRequests`, and `test_tool_with_task`'s ask before its first wait is an
// `input_required` round of the call itself.

/// Say hello to `name` (sync only: never a task).
#[tool(read_only)]
fn greet(name: String) -> String {
    format!("Hello, {name}!")
}

/// Sleep `seconds`, then say so; a task when the client takes one (`seconds: 0` answers at
/// once). A `tasks/cancel` while it sleeps cancels it.
#[tool(read_only, task = "optional")]
async fn slow_compute(seconds: f64, label: Option<String>) -> String {
    tokio::time::sleep(Duration::from_secs_f64(seconds.clamp(0.0, 3600.0))).await;
    format!("slow_compute({}) done after {seconds}s", label.unwrap_or_default())
}

/// Work for a second, then fail with a tool error; runs only as a task.
#[tool(read_only, task = "required")]
async fn failing_job() -> Result<String, String> {
    tokio::time::sleep(Duration::from_secs(1)).await;
    Err("the job failed (as this fixture always does)".to_owned())
}

/// Work briefly, then panic: a protocol-level failure of the task.
#[tool(read_only, task = "optional")]
async fn protocol_error_job() -> String {
    tokio::time::sleep(Duration::from_millis(50)).await;
    panic!("protocol_error_job fails with a protocol error, as this fixture always does")
}

/// A yes or no, as the task fixtures ask for it.
#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Confirmation {
    confirm: bool,
}

/// Look `filename` up, then ask the user to confirm its deletion (an input request of the
/// task), and say what they decided. Optional, not required: `http-header-validation` calls
/// the first tool listed (this one, by name) without the extension and wants a result.
#[tool(read_only, task = "optional")]
async fn confirm_delete(ctx: &Context, filename: String) -> Result<String, AskError> {
    tokio::time::sleep(Duration::from_millis(10)).await;
    let answer: Confirmation = ctx.elicit_as("confirm", &format!("Delete {filename}?")).await?;
    Ok(format!("confirm_delete({filename}): confirmed = {}", answer.confirm))
}

/// Two answers asked at once, as the partial-fulfilment check wants them.
#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Part {
    name: String,
}

/// Get ready, then ask two questions at once: two input requests pending together.
#[tool(read_only, task = "optional")]
async fn multi_input(ctx: &Context) -> Result<String, AskError> {
    tokio::time::sleep(Duration::from_millis(10)).await;
    let (a, b) = tokio::join!(
        ctx.elicit_as::<Part>("first", "First name?"),
        ctx.elicit_as::<Part>("second", "Second name?")
    );
    Ok(format!("multi_input: a = {}, b = {}", a?.name, b?.name))
}

/// Ask the user's name (`user_name`) in an `input_required` round, then work on as a task
/// whose result greets them.
#[tool(read_only, task = "required")]
async fn test_tool_with_task(ctx: &Context) -> Result<String, AskError> {
    let who: Name = ctx.elicit_as("user_name", "What is your name?").await?;
    tokio::time::sleep(Duration::from_millis(50)).await;
    Ok(format!("Hello, {}! (from the task)", who.name))
}

// ─── end of the tasks extension's fixtures ───

fn main() {
    let mut port = 0u16;
    let mut stdio = false;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--port" => port = args.next().and_then(|p| p.parse().ok()).unwrap_or_else(|| usage()),
            "--stdio" => stdio = true,
            "-h" | "--help" => {
                println!("serve the MCP conformance suite's fixtures on http://127.0.0.1:P/mcp, or on stdio");
                println!("usage: conformance [--port P | --stdio]");
                return;
            }
            _ => usage(),
        }
    }

    let mut registry = tools![
        test_simple_text,
        test_image_content,
        test_audio_content,
        test_embedded_resource,
        test_multiple_content_types,
        test_error_handling,
        test_tool_with_progress,
        test_tool_with_logging,
        test_sampling,
        test_elicitation,
        test_elicitation_sep1034_defaults,
        test_elicitation_sep1330_enums,
        test_reconnection,
        test_input_required_result_elicitation,
        test_input_required_result_sampling,
        test_input_required_result_list_roots,
        test_input_required_result_request_state,
        test_input_required_result_multiple_inputs,
        test_input_required_result_multi_round,
        test_input_required_result_tampered_state,
        test_input_required_result_capabilities,
        test_streaming_elicitation,
        test_logging_tool,
    ]
    .expect("fixture tool names are unique");
    // The tasks extension's fixtures (SEP-2663).
    let task_fixtures = tools![
        greet,
        slow_compute,
        failing_job,
        protocol_error_job,
        confirm_delete,
        multi_input,
        test_tool_with_task
    ]
    .expect("fixture tool names are unique");
    registry.merge(task_fixtures).expect("fixture tool names are unique");
    registry.register(test_missing_capability()).expect("fixture tool names are unique");
    registry.register(json_schema_2020_12_tool()).expect("fixture tool names are unique");
    registry.register(test_header_param()).expect("fixture tool names are unique");

    let prompts = prompts![
        test_simple_prompt,
        test_prompt_with_arguments,
        test_prompt_with_embedded_resource,
        test_prompt_with_image,
        test_input_required_result_prompt
    ]
    .expect("fixture prompt names are unique");
    let resources = resources![static_text, static_binary, watched_resource, template_data]
        .expect("fixture resource URIs are distinct");

    let server = Server::builder(ServerOptions::new("toolwire-conformance", env!("CARGO_PKG_VERSION")))
        .tools(registry)
        .resources(resources)
        .prompts(prompts)
        .skills(conformance_skills())
        .build();
    let runtime = tokio::runtime::Runtime::new().expect("a tokio runtime");
    let served = if stdio {
        runtime
            .block_on(toolwire::stdio::serve(server, toolwire::stdio::StdioConfig::new()))
            .map_err(|e| e.to_string())
    } else {
        runtime.block_on(serve_http(server, port)).map_err(|e| e.to_string())
    };
    if let Err(e) = served {
        eprintln!("conformance: {e}");
        std::process::exit(1);
    }
}

/// The skills the `sep-2640-skills-*` scenarios read: one skill with a file in a subfolder
/// (`resources/directory/read` must list a folder, `inode/directory`).
fn conformance_skills() -> SkillCatalog {
    let mut catalog = SkillCatalog::new();
    catalog
        .add(
            "test-skill",
            [
                (
                    "SKILL.md",
                    "---\nname: test-skill\ndescription: A skill the conformance suite reads\n---\n\nRead references/GUIDE.md first.\n",
                ),
                ("references/GUIDE.md", "The guide.\n"),
            ],
        )
        .expect("the fixture skill is well formed");
    catalog
}

/// Serve `server` on `127.0.0.1:port` without auth until stdin closes (the parent's way of
/// saying it is done), after printing the URL.
async fn serve_http(server: Server, port: u16) -> std::io::Result<()> {
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", port)).await?;
    println!("http://{}/mcp", listener.local_addr()?);
    // An answer silent for 300 ms is polled (only `test_reconnection` is that slow).
    let config =
        HttpConfig::new(Auth::None).sse_polling(Duration::from_millis(300), Duration::from_millis(500));
    let router = mcp_router(server, config);
    let stdin_closed = async {
        let _ =
            tokio::task::spawn_blocking(|| std::io::copy(&mut std::io::stdin().lock(), &mut std::io::sink()))
                .await;
    };
    axum::serve(listener, router).with_graceful_shutdown(stdin_closed).await
}
