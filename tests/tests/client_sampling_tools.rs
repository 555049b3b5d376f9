//! Sampling with tools (issue 47) on the client side, against the Python SDK 2.3.0's
//! `MCPServer` (`tests/peers/fixtures/client_sampling_tools.py`): the server samples with a
//! tool and `toolChoice`, the client's model calls the tool (`tool_use`), the server runs it
//! and samples again with the `tool_result`, which the client reads. Needs the peers:
//! `bash tests/peers/setup.sh`.

mod client_support;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use client_support::py2;
use serde_json::json;
use toolwire::client::{CallOptions, Client, ClientOptions, CreateMessageResult, EraMode};

#[tokio::test]
async fn a_python_server_samples_with_a_tool_and_gets_the_models_tool_call_and_final_answer() {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let s = Arc::clone(&seen);
    let options = ClientOptions::new("agent")
        .era(EraMode::Legacy)
        .request_timeout(Duration::from_secs(10))
        .sampling_with_tools()
        .on_sample(move |request| {
            let seen = Arc::clone(&s);
            async move {
                let last = request.messages.last().unwrap();
                let results = last.tool_results();
                let answer = match results.first() {
                    // The first round: the model calls the offered tool.
                    None => {
                        let tool = &request.tools[0];
                        seen.lock().unwrap().push(json!({
                            "tool": tool.name, "schema": tool.input_schema, "choice": request.tool_choice,
                            "question": request.last_text(),
                        }));
                        CreateMessageResult::tool_use(
                            "fake-model",
                            "call-1",
                            &tool.name,
                            json!({"city": "Paris"}),
                        )
                    }
                    // The second: the tool's result, answering the model's call.
                    Some(r) => {
                        let earlier = request.messages[request.messages.len() - 2].tool_uses();
                        seen.lock().unwrap().push(json!({
                            "use": [earlier[0].id, earlier[0].name, earlier[0].input],
                            "result": [r.tool_use_id, r.content],
                        }));
                        CreateMessageResult::text("fake-model", "It is mild.")
                    }
                };
                Ok(answer)
            }
        });
    let client = Client::connect(py2("client_sampling_tools.py"), options).await.unwrap();
    let result =
        client.call_tool("weather_agent", json!({"city": "Paris"}), CallOptions::new()).await.unwrap();
    assert!(!result.is_error, "{result:?}");
    assert_eq!(result.text(), "final: It is mild. (toolUse)");
    let seen = seen.lock().unwrap().clone();
    assert_eq!(seen.len(), 2, "{seen:?}");
    assert_eq!(seen[0]["tool"], "get_temperature");
    assert_eq!(seen[0]["schema"]["required"], json!(["city"]));
    assert_eq!(seen[0]["choice"], json!({"mode": "auto"}));
    assert_eq!(seen[0]["question"], "How warm is Paris?");
    assert_eq!(seen[1]["use"], json!(["call-1", "get_temperature", {"city": "Paris"}]));
    assert_eq!(seen[1]["result"], json!(["call-1", [{"type": "text", "text": "21C in Paris"}]]));
    client.close().await;
}
