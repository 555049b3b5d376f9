//! toolwire's client as the conformance suite's client under test:
//! `conformance client --command "client_conformance" --scenario S` runs this with the
//! scenario's URL as the last argument, the scenario in `MCP_CONFORMANCE_SCENARIO` and the
//! protocol version in `MCP_CONFORMANCE_PROTOCOL_VERSION` (2026-07-28 speaks the modern
//! era, anything else the legacy handshake).
//!
//! It lists the tools and calls each once, answering what the server asks with typed
//! handlers: an elicitation is accepted with its form's defaults, a sampling request is
//! answered with a fixed text, roots are one directory. On 2026-07-28 the server's
//! `input_required` rounds are answered through the same handlers.
//!
//! `json-schema-2020-12-preservation` asks the client to hand the schema it holds for
//! `json_schema_2020_12_tool` back as the `schema` argument of `json_schema_echo`: it is given
//! the adopted tool's input schema, the one a host and its model see, so the scenario checks
//! adoption as well as listing.

use serde_json::{Map, Value, json};
use toolwire::client::{
    AdoptOptions, Client, ClientOptions, CreateMessageResult, Elicited, EraMode, HttpServer, Root,
};
use toolwire::{Context, Tool};

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let url = std::env::args().next_back().ok_or("usage: client_conformance URL")?;
    let scenario = std::env::var("MCP_CONFORMANCE_SCENARIO").unwrap_or_default();
    let era = match std::env::var("MCP_CONFORMANCE_PROTOCOL_VERSION").as_deref() {
        Ok("2026-07-28") => EraMode::Modern,
        _ => EraMode::Legacy,
    };
    let options = ClientOptions::new("conformance")
        .era(era)
        .on_elicit(|request| async move { Ok(Elicited::accept(request.defaults())) })
        .on_sample(|_| async { Ok(CreateMessageResult::text("conformance-model", "ok")) })
        .roots(vec![Root::new("file:///tmp/conformance", Some("conformance".into()))]);
    let client = Client::connect(HttpServer::new(url), options).await?;
    let listed = client.list_tools(false).await?;
    let discovery = client.adopt(AdoptOptions::default().prefix("")).await?;
    for tool in discovery.tools() {
        let name = tool.info().name();
        let args = match name {
            "add_numbers" => json!({"a": 2, "b": 3}),
            "json_schema_echo" => {
                let focal = discovery.get("json_schema_2020_12_tool")?;
                json!({"schema": focal.info().input_schema().value()})
            }
            _ if scenario == "initialize" => continue,
            _ => {
                listed.iter().find(|t| t.name == name).map_or_else(|| json!({}), |t| sample(&t.input_schema))
            }
        };
        match tool.call_json(args, &Context::new()).await {
            Ok(out) => println!("{}: {}", tool.info().name(), out.joined_text()),
            Err(e) => println!("{}: {e}", tool.info().name()),
        }
    }
    client.close().await;
    Ok(())
}

/// Arguments a schema accepts: each required property given a value of its type.
fn sample(schema: &Value) -> Value {
    let mut args = Map::new();
    let props = schema.get("properties").and_then(Value::as_object);
    let required = schema.get("required").and_then(Value::as_array).cloned().unwrap_or_default();
    for name in required.iter().filter_map(Value::as_str) {
        let prop = props.and_then(|p| p.get(name)).cloned().unwrap_or(Value::Null);
        let value = match prop.get("type").and_then(Value::as_str) {
            Some("integer" | "number") => json!(1),
            Some("boolean") => json!(true),
            Some("array") => json!([]),
            Some("object") => json!({}),
            _ => json!("conformance"),
        };
        args.insert(name.to_owned(), value);
    }
    Value::Object(args)
}
