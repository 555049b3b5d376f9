//! Tower layers around the engine (feature `tower`, `ServerBuilder::layer`), driven through
//! sessions: a timeout's answer and the cancellation of the body it ended, a layer's own
//! answer (completed for a modern request), the interceptors inside the layers, a client's
//! cancellation passing through them, a batch, and a shed request.

use std::convert::Infallible;

use tower::layer::layer_fn;
use tower::{ServiceExt, service_fn};

use super::*;
use crate::server::{Intercepted, McpRequest, McpResponse, Next, Ruling, ServerBuilder};

const TIMED_OUT_TEXT: &str = "timed out: the server's time limit for a request passed before it was answered";

/// A builder of these tools, and the flag their `Forever`/`WatchCancel` bodies set.
fn builder_of(tools: &[(&'static str, Behaviour)]) -> (ServerBuilder, Arc<AtomicBool>) {
    let dropped = Arc::new(AtomicBool::new(false));
    let mut registry = ToolRegistry::new();
    for &(name, behaviour) in tools {
        let info = ToolInfo::new(name, format!("The {name} tool."), Schema::empty_object())
            .with_declarations(Declarations::read_only());
        registry.register(TestTool { info, behaviour, dropped: dropped.clone() }).unwrap();
    }
    (Server::builder(options()).tools(registry), dropped)
}

fn tools() -> [(&'static str, Behaviour); 3] {
    [("echo", Behaviour::Echo), ("forever", Behaviour::Forever), ("progress", Behaviour::Progress(2))]
}

/// A layer answering `tools/call` of `canned` itself, and counting what it saw (method and
/// name) into `seen`.
type Seen = Arc<Mutex<Vec<String>>>;

fn own_layer(
    seen: Seen,
) -> impl tower::Layer<
    Next,
    Service = impl tower::Service<McpRequest, Response = McpResponse, Error = Infallible, Future = impl Send>
              + Clone
              + Send,
> + Clone {
    layer_fn(move |next: Next| {
        let seen = seen.clone();
        service_fn(move |request: McpRequest| {
            let (next, seen) = (next.clone(), seen.clone());
            async move {
                seen.lock().unwrap().push(format!("{} {}", request.method(), request.name().unwrap_or("-")));
                if request.name() == Some("canned") {
                    let body = r#"{"content":[{"type":"text","text":"from the layer"}]}"#;
                    return Ok(McpResponse::result(RawValue::from_string(body.to_owned()).unwrap()));
                }
                next.oneshot(request).await
            }
        })
    })
}

#[tokio::test]
async fn a_timeout_answers_in_words_naming_the_call_and_cancels_its_body() {
    let (builder, dropped) = builder_of(&tools());
    let server = builder.layer(tower::timeout::TimeoutLayer::new(Duration::from_millis(50))).build();
    let w = Wire::new(&server);
    w.initialize_later("2025-11-25").await;
    w.send(&call(1, "forever", ""));
    let got = w.wait(1).await;
    assert_eq!(
        got,
        [format!(
            r#"{{"jsonrpc":"2.0","id":1,"error":{{"code":-32033,"message":"tools/call of 'forever' {TIMED_OUT_TEXT}"}}}}"#
        )]
    );
    assert!(dropped.load(Ordering::SeqCst), "the body the timeout ended was dropped");
    assert_eq!(w.session.in_flight(), 0, "and is no longer in flight");
    // A call within the limit is answered as without the layer; so is `ping`.
    assert_eq!(w.ask_later(&call(2, "echo", "")).await, text_result(2, "{}", false));
    assert_eq!(
        w.ask_later(r#"{"jsonrpc":"2.0","id":3,"method":"ping"}"#).await,
        r#"{"jsonrpc":"2.0","id":3,"result":{}}"#
    );
}

#[tokio::test]
async fn a_sync_body_a_timeout_ends_reads_its_context_cancelled() {
    let (builder, cancelled) = builder_of(&[("watch", Behaviour::WatchCancel)]);
    let server = builder.layer(tower::timeout::TimeoutLayer::new(Duration::from_millis(50))).build();
    let w = Wire::new(&server);
    w.initialize_later("2025-11-25").await;
    w.send(&call(1, "watch", ""));
    let got = w.wait(1).await;
    assert!(got[0].contains("tools/call of 'watch' timed out"), "{got:?}");
    for _ in 0..200 {
        if cancelled.load(Ordering::SeqCst) {
            return;
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    panic!("the body never saw its context cancelled");
}

#[tokio::test]
async fn a_layer_sees_each_request_and_answers_on_its_own_in_either_era() {
    let seen = Seen::default();
    let (builder, _) = builder_of(&tools());
    let server = builder.layer(own_layer(seen.clone())).build();
    let w = Wire::new(&server);
    w.initialize_later("2025-11-25").await;
    assert_eq!(
        w.ask_later(&call(1, "canned", "")).await,
        r#"{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"from the layer"}]}}"#
    );
    assert_eq!(w.ask_later(&call(2, "echo", "")).await, text_result(2, "{}", false));
    // Modern: the layer's own answer is completed as the engine completes its results; the
    // engine's is sent as it is.
    let modern: serde_json::Value =
        serde_json::from_str(&w.ask_later(&call(3, "canned", &format!(",{MODERN}"))).await).unwrap();
    let server_meta: serde_json::Value = serde_json::from_str(&format!("{{{SERVER_META}}}")).unwrap();
    assert_eq!(
        modern["result"],
        serde_json::json!({
            "_meta": server_meta["_meta"],
            "resultType": "complete",
            "content": [{"type": "text", "text": "from the layer"}],
        })
    );
    let engine = w.ask_later(&call(4, "echo", &format!(",{MODERN}"))).await;
    assert!(
        engine.starts_with(r#"{"jsonrpc":"2.0","id":4,"result":{"#) && engine.contains("resultType"),
        "{engine}"
    );
    assert_eq!(
        *seen.lock().unwrap(),
        ["initialize -", "tools/call canned", "tools/call echo", "tools/call canned", "tools/call echo"]
    );
}

#[tokio::test]
async fn the_interceptors_run_inside_the_layers_and_their_refusal_is_what_a_layer_reads() {
    let read = Seen::default();
    let (builder, _) = builder_of(&tools());
    let reader = {
        let read = read.clone();
        layer_fn(move |next: Next| {
            let read = read.clone();
            service_fn(move |request: McpRequest| {
                let (next, read) = (next.clone(), read.clone());
                async move {
                    let response = next.oneshot(request).await?;
                    if let Some(error) = response.as_error() {
                        read.lock().unwrap().push(error.message.clone());
                    }
                    Ok::<_, Infallible>(response)
                }
            })
        })
    };
    let server = builder
        .intercept(
            |r: &Intercepted<'_>| {
                if r.name() == Some("echo") { Ruling::refuse("not today") } else { Ruling::Pass }
            },
        )
        .layer(reader)
        .build();
    let w = Wire::new(&server);
    w.initialize_later("2025-11-25").await;
    let refused = w.ask_later(&call(1, "echo", "")).await;
    assert_eq!(
        refused,
        r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32030,"message":"tools/call of 'echo' refused: not today"}}"#
    );
    assert_eq!(*read.lock().unwrap(), ["tools/call of 'echo' refused: not today"]);
}

#[tokio::test]
async fn progress_goes_out_before_the_answer_and_a_cancelled_call_gets_none() {
    let (builder, dropped) = builder_of(&tools());
    let server = builder.layer(tower::timeout::TimeoutLayer::new(Duration::from_secs(30))).build();
    let w = Wire::new(&server);
    w.initialize_later("2025-11-25").await;
    w.send(&call(1, "progress", r#","_meta":{"progressToken":"p"}"#));
    let got = w.wait(3).await;
    assert!(
        got[0].contains("notifications/progress") && got[1].contains("notifications/progress"),
        "{got:?}"
    );
    assert_eq!(got[2], text_result(1, "done 2", false));

    w.send(&call(2, "forever", ""));
    assert_eq!(w.session.in_flight(), 1, "in flight from its first poll, in place");
    // Let the body start (its drop is what the cancellation is seen by).
    tokio::time::sleep(Duration::from_millis(50)).await;
    w.send(r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}}"#);
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert!(dropped.load(Ordering::SeqCst), "the cancelled body was dropped");
    assert_eq!(w.take(), Vec::<String>::new(), "nothing is sent for a cancelled call");
}

#[tokio::test]
async fn a_batch_is_served_one_layered_request_each_and_answered_as_one() {
    let seen = Seen::default();
    let (builder, _) = builder_of(&tools());
    let server = builder.layer(own_layer(seen.clone())).build();
    let w = Wire::new(&server);
    w.initialize_later("2025-03-26").await;
    w.send(&format!("[{},{}]", call(1, "canned", ""), call(2, "echo", "")));
    let got = w.wait(1).await;
    let batch: Vec<serde_json::Value> = serde_json::from_str(&got[0]).unwrap();
    let mut ids: Vec<i64> = batch.iter().map(|m| m["id"].as_i64().unwrap()).collect();
    ids.sort();
    assert_eq!(ids, [1, 2], "{got:?}");
    assert_eq!(seen.lock().unwrap().len(), 3, "initialize and the two calls");
}

#[tokio::test]
async fn a_shed_request_reads_as_the_server_at_capacity() {
    let (builder, _) = builder_of(&tools());
    // One `ServiceBuilder` (the README's spelling): the shedding sees the limit inside it.
    let server = builder
        .layer(
            tower::ServiceBuilder::new()
                .layer(tower::load_shed::LoadShedLayer::new())
                .layer(tower::limit::ConcurrencyLimitLayer::new(1)),
        )
        .build();
    let w = Wire::new(&server);
    w.initialize_later("2025-11-25").await;
    w.send(&call(1, "forever", ""));
    for _ in 0..200 {
        if w.session.in_flight() == 1 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    assert_eq!(
        w.ask_later(&call(2, "echo", "")).await,
        r#"{"jsonrpc":"2.0","id":2,"error":{"code":-32034,"message":"tools/call of 'echo' was not served: the server is at capacity; try again later"}}"#
    );
    // The one in flight cancelled, its permit is free again.
    w.send(r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}"#);
    tokio::time::sleep(Duration::from_millis(50)).await;
    assert_eq!(w.ask_later(&call(3, "echo", "")).await, text_result(3, "{}", false));
}

#[tokio::test]
async fn what_no_layer_holds_up_is_answered_in_place_so_a_pipelined_handshake_completes() {
    let (builder, _) = builder_of(&tools());
    let server = builder.layer(tower::timeout::TimeoutLayer::new(Duration::from_secs(5))).build();
    let w = Wire::new(&server);
    // `initialize`, then at once `notifications/initialized`: no await between them.
    let answer = w.initialize("2025-11-25");
    assert!(answer.contains(r#""protocolVersion":"2025-11-25""#), "{answer}");
    assert!(w.session.is_initialized(), "notifications/initialized found the handshake done");
    assert_eq!(
        w.ask(r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#),
        r#"{"jsonrpc":"2.0","id":1,"result":{}}"#
    );
}

#[tokio::test]
async fn a_drain_waits_for_the_requests_still_in_the_layers() {
    let (builder, _) = builder_of(&tools());
    let late = layer_fn(|next: Next| {
        service_fn(move |request: McpRequest| {
            let next = next.clone();
            async move {
                tokio::time::sleep(Duration::from_millis(50)).await;
                next.oneshot(request).await
            }
        })
    });
    let server = builder.layer(late).build();
    let w = Wire::new(&server);
    // Input closes right after a request a layer holds: it is in the layers, in no table of
    // calls, when the drain starts.
    w.send(r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#);
    w.session.drain(Duration::from_secs(2)).await;
    assert_eq!(w.take(), [r#"{"jsonrpc":"2.0","id":1,"result":{}}"#]);
}

/// What an outer layer puts in a request's extensions, an inner one reads.
#[derive(Clone)]
struct Tenant(&'static str);

#[tokio::test]
async fn an_outer_layer_hands_an_inner_one_values_in_the_extensions() {
    let read = Seen::default();
    let (builder, _) = builder_of(&tools());
    let inner = {
        let read = read.clone();
        layer_fn(move |next: Next| {
            let read = read.clone();
            service_fn(move |request: McpRequest| {
                let tenant = request.extensions().get::<Tenant>().map_or("none", |t| t.0);
                read.lock().unwrap().push(format!("{} for {tenant}", request.method()));
                next.clone().oneshot(request)
            })
        })
    };
    let outer = layer_fn(|next: Next| {
        service_fn(move |mut request: McpRequest| {
            request.extensions_mut().insert(Tenant("acme"));
            next.clone().oneshot(request)
        })
    });
    let server = builder.layer(inner).layer(outer).build();
    let w = Wire::new(&server);
    w.initialize_later("2025-11-25").await;
    assert_eq!(w.ask_later(&call(1, "echo", "")).await, text_result(1, "{}", false));
    assert_eq!(*read.lock().unwrap(), ["initialize for acme", "tools/call for acme"]);
}

impl Wire {
    /// [`initialize`](Self::initialize), its answer awaited before `notifications/initialized`.
    async fn initialize_later(&self, version: &str) -> String {
        let answer = self.ask_later(&format!(
            r#"{{"jsonrpc":"2.0","id":0,"method":"initialize","params":{{"protocolVersion":"{version}","capabilities":{{}},"clientInfo":{{"name":"t","version":"1"}}}}}}"#
        ))
        .await;
        self.send(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
        answer
    }

    /// Send `line` and wait for the one message it gets back (a layered request is answered
    /// from a task of its own).
    async fn ask_later(&self, line: &str) -> String {
        self.send(line);
        let mut got = self.wait(1).await;
        assert_eq!(got.len(), 1, "expected exactly one answer to {line}: {got:?}");
        got.remove(0)
    }
}
