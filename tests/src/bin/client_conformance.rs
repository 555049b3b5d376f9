//! toolwire's client as the conformance suite's client under test:
//! `conformance client --command "client_conformance" --scenario S` runs this with the
//! scenario's URL as the last argument and the scenario in `MCP_CONFORMANCE_SCENARIO`.

use std::sync::Arc;

use serde_json::{Map, Value, json};
use toolwire::client::{AdoptOptions, Client, ClientOptions, HandlerFuture, HttpServer};
use toolwire::{Context, Tool};

/// Accept an elicitation, filling every field from its schema's `default`.
fn accept_with_defaults(params: Value) -> HandlerFuture {
    Box::pin(async move {
        let mut content = Map::new();
        if let Some(props) = params.pointer("/requestedSchema/properties").and_then(Value::as_object) {
            for (name, schema) in props {
                if let Some(d) = schema.get("default") {
                    content.insert(name.clone(), d.clone());
                }
            }
        }
        Ok(json!({"action": "accept", "content": content}))
    })
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let url = std::env::args().next_back().ok_or("usage: client_conformance URL")?;
    let scenario = std::env::var("MCP_CONFORMANCE_SCENARIO").unwrap_or_default();
    let options = ClientOptions::new("conformance").elicitation(Arc::new(accept_with_defaults));
    let client = Client::connect(HttpServer::new(url), options).await?;
    let discovery = client.adopt(AdoptOptions::default().prefix("")).await?;
    for tool in discovery.tools() {
        let args = match tool.info().name() {
            "add_numbers" => json!({"a": 2, "b": 3}),
            _ if scenario == "initialize" => continue,
            _ => json!({}),
        };
        match tool.call_json(args, &Context::new()).await {
            Ok(out) => println!("{}: {}", tool.info().name(), out.joined_text()),
            Err(e) => println!("{}: {e}", tool.info().name()),
        }
    }
    client.close().await;
    Ok(())
}
