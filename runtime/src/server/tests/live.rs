//! A live server (`ServerBuilder::live`), driven through sessions: the swap, the
//! `list_changed` notifications (to initialized sessions with a notifier, and on
//! `subscriptions/listen`), a call in flight across its tool's removal, and paging across a
//! change.

use super::*;
use crate::prompt::{Prompt, PromptArguments, PromptFuture, PromptInfo, PromptRegistry, PromptReturn};
use crate::resource::{ReadFuture, Resource, ResourceInfo, ResourceRegistry, ResourceReturn};

const TOOLS_CHANGED: &str = r#"{"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{}}"#;

fn tool(name: &str) -> TestTool {
    let info = ToolInfo::new(name.to_owned(), format!("The {name} tool."), Schema::empty_object())
        .with_declarations(Declarations::read_only());
    TestTool { info, behaviour: Behaviour::Echo, dropped: Arc::new(AtomicBool::new(false)) }
}

fn live_server(options: ServerOptions) -> Server {
    let mut registry = ToolRegistry::new();
    registry.register(tool("echo")).unwrap();
    Server::builder(options).tools(registry).live().build()
}

/// A wire whose session has a notifier (its own sink), initialized at 2025-11-25.
fn listening(server: &Server) -> Wire {
    let w = Wire::new(server);
    w.session.set_notifier(w.sink.clone());
    w.initialize("2025-11-25");
    w
}

fn list(id: u32, cursor: Option<&str>) -> String {
    match cursor {
        None => format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/list","params":{{}}}}"#),
        Some(c) => {
            format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/list","params":{{"cursor":"{c}"}}}}"#)
        }
    }
}

fn listed_names(answer: &str) -> Vec<String> {
    let v: serde_json::Value = serde_json::from_str(answer).unwrap();
    v["result"]["tools"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap().to_owned()).collect()
}

#[tokio::test]
async fn only_a_live_server_advertises_list_changed() {
    let live = Wire::new(&live_server(options()));
    assert!(live.initialize("2025-11-25").contains(r#""tools":{"listChanged":true}"#));
    let fixed = Wire::new(&fixture(options()).server);
    assert!(fixed.initialize("2025-11-25").contains(r#""tools":{"listChanged":false}"#));
    let resources = Server::builder(options()).resources(ResourceRegistry::new()).live().build();
    assert!(
        Wire::new(&resources)
            .initialize("2025-11-25")
            .contains(r#""resources":{"subscribe":true,"listChanged":true}"#)
    );
}

#[tokio::test]
async fn adding_and_removing_a_tool_swaps_the_list_and_tells_every_initialized_session() {
    let s = live_server(options());
    let a = listening(&s);
    let b = listening(&s);
    // Not initialized yet, or no channel outside a call: told nothing.
    let early = Wire::new(&s);
    early.session.set_notifier(early.sink.clone());
    let silent = Wire::new(&s);
    silent.initialize("2025-11-25");

    s.add_tool(tool("extra")).unwrap();
    assert_eq!(a.take(), [TOOLS_CHANGED]);
    assert_eq!(b.take(), [TOOLS_CHANGED]);
    assert!(early.take().is_empty());
    assert!(silent.take().is_empty());
    assert_eq!(listed_names(&a.ask(&list(1, None))), ["echo", "extra"]);
    assert_eq!(s.registry().names().collect::<Vec<_>>(), ["echo", "extra"]);
    a.send(&call(2, "extra", ""));
    assert_eq!(a.wait(1).await, [text_result(2, "{}", false)]);

    // A refused change changes nothing and tells no one.
    assert_eq!(
        s.add_tool(tool("extra")).unwrap_err().to_string(),
        "duplicate tool name 'extra': registered by `toolwire::server::tests::TestTool` and by `toolwire::server::tests::TestTool`"
    );
    assert!(a.take().is_empty());

    assert!(s.remove_tool("extra").unwrap());
    assert_eq!(a.take(), [TOOLS_CHANGED]);
    assert_eq!(
        a.ask(&call(3, "extra", "")),
        r#"{"jsonrpc":"2.0","id":3,"error":{"code":-32602,"message":"unknown tool 'extra'; available tools: ['echo']"}}"#
    );
    assert!(!s.remove_tool("extra").unwrap());
    assert!(a.take().is_empty(), "removing nothing tells no one");
    // The session that initialized late hears of the next change.
    early.initialize("2025-11-25");
    s.add_tool(tool("again")).unwrap();
    assert_eq!(early.take(), [TOOLS_CHANGED]);
}

#[tokio::test]
async fn a_fixed_server_and_a_missing_capability_refuse_changes_saying_why() {
    let fixed = fixture(options()).server;
    assert_eq!(
        fixed.remove_tool("echo").unwrap_err().to_string(),
        "the server's tools cannot change while it serves: it was not built with ServerBuilder::live()"
    );
    assert_eq!(fixed.registry().len(), 5);
    let live = live_server(options());
    assert_eq!(
        live.remove_prompt("p").unwrap_err().to_string(),
        "the server serves no prompts: give the builder a registry of them (it may be empty) to add to later"
    );
}

/// A tool that answers only when its gate opens.
struct Gated(ToolInfo, Arc<tokio::sync::Notify>);

impl Tool for Gated {
    fn info(&self) -> &ToolInfo {
        &self.0
    }
    fn call<'a>(&'a self, _args: &'a RawValue, _ctx: &'a Context) -> ToolFuture<'a> {
        Box::pin(async move {
            self.1.notified().await;
            Ok(ToolOutput::text("through the gate"))
        })
    }
}

#[tokio::test]
async fn a_call_in_flight_finishes_on_the_tool_it_started_with() {
    let s = live_server(options());
    let gate = Arc::new(tokio::sync::Notify::new());
    let info = ToolInfo::new("gated", "Wait for the gate.", Schema::empty_object());
    s.add_tool(Gated(info, gate.clone())).unwrap();
    let w = listening(&s);
    w.send(&call(1, "gated", ""));
    tokio::time::sleep(Duration::from_millis(20)).await;
    assert_eq!(w.session.in_flight(), 1);
    assert!(s.remove_tool("gated").unwrap());
    assert_eq!(w.take(), [TOOLS_CHANGED]);
    gate.notify_one();
    assert_eq!(w.wait(1).await, [text_result(1, "through the gate", false)]);
    assert_eq!(
        w.ask(&call(2, "gated", "")),
        r#"{"jsonrpc":"2.0","id":2,"error":{"code":-32602,"message":"unknown tool 'gated'; available tools: ['echo']"}}"#
    );
}

#[tokio::test]
async fn a_cursor_from_a_list_that_has_since_changed_is_refused_saying_so() {
    let s = live_server(options().page_size(1));
    s.add_tool(tool("two")).unwrap();
    let w = listening(&s);
    let first: serde_json::Value = serde_json::from_str(&w.ask(&list(1, None))).unwrap();
    let cursor = first["result"]["nextCursor"].as_str().unwrap().to_owned();
    s.add_tool(tool("three")).unwrap();
    assert_eq!(w.take(), [TOOLS_CHANGED]);
    let changed = r#"{"jsonrpc":"2.0","id":2,"error":{"code":-32602,"message":"cursor is from a tools list that has since changed; list again from the start"}}"#;
    assert_eq!(w.ask(&list(2, Some(&cursor))), changed);
    // Two changes later it is still recognised; a cursor never issued keeps its own words.
    s.remove_tool("three").unwrap();
    s.add_tool(tool("four")).unwrap();
    assert_eq!(w.take(), [TOOLS_CHANGED, TOOLS_CHANGED]);
    assert_eq!(w.ask(&list(2, Some(&cursor))), changed);
    assert_eq!(
        w.ask(&list(3, Some("0123456789abcdef-1"))),
        r#"{"jsonrpc":"2.0","id":3,"error":{"code":-32602,"message":"invalid cursor \"0123456789abcdef-1\": it is not one this server issued; list again without a cursor"}}"#
    );
    // Listing again from the start pages through the new list.
    let mut names = listed_names(&w.ask(&list(4, None)));
    let mut page: serde_json::Value = serde_json::from_str(&w.ask(&list(4, None))).unwrap();
    while let Some(next) = page["result"]["nextCursor"].as_str().map(str::to_owned) {
        let answer = w.ask(&list(5, Some(&next)));
        names.extend(listed_names(&answer));
        page = serde_json::from_str(&answer).unwrap();
    }
    assert_eq!(names, ["echo", "four", "two"]);
}

#[tokio::test]
async fn listen_carries_the_list_changes_it_asked_for() {
    let s = live_server(options());
    let w = Wire::new(&s);
    w.send(&format!(
        r#"{{"jsonrpc":"2.0","id":"L","method":"subscriptions/listen","params":{{{MODERN},"notifications":{{"toolsListChanged":true,"promptsListChanged":true}}}}}}"#
    ));
    // Prompts are not served, so only the tools flag is granted.
    assert_eq!(
        w.wait(1).await,
        [
            r#"{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":"L"},"notifications":{"toolsListChanged":true}}}"#
        ]
    );
    s.add_tool(tool("extra")).unwrap();
    assert_eq!(
        w.take(),
        [
            r#"{"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":"L"}}}"#
        ]
    );
    // A listen that did not ask for tools hears nothing of them.
    let other = Wire::new(&s);
    other.send(&format!(
        r#"{{"jsonrpc":"2.0","id":"M","method":"subscriptions/listen","params":{{{MODERN},"notifications":{{}}}}}}"#
    ));
    assert_eq!(other.wait(1).await.len(), 1);
    s.remove_tool("extra").unwrap();
    assert!(other.take().is_empty());
    assert_eq!(w.take().len(), 1);
    // A fixed tools-only server has nothing to listen for.
    let fixed = Wire::new(&fixture(options()).server);
    assert_eq!(
        fixed.ask(&format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"subscriptions/listen","params":{{{MODERN},"notifications":{{"toolsListChanged":true}}}}}}"#
        )),
        r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"method 'subscriptions/listen' not found"}}"#
    );
}

struct Doc(ResourceInfo);

impl Resource for Doc {
    fn info(&self) -> &ResourceInfo {
        &self.0
    }
    fn read<'a>(&'a self, _: &'a Context) -> ReadFuture<'a> {
        Box::pin(async move { "doc".to_owned().into_contents(self.0.uri(), None) })
    }
}

struct Hello(PromptInfo);

impl Prompt for Hello {
    fn info(&self) -> &PromptInfo {
        &self.0
    }
    fn get<'a>(&'a self, _: &'a PromptArguments, _: &'a Context) -> PromptFuture<'a> {
        Box::pin(async move { "hello".into_prompt_result("hello") })
    }
}

#[tokio::test]
async fn resources_and_prompts_change_and_are_announced_too() {
    let s = Server::builder(options())
        .resources(ResourceRegistry::new())
        .prompts(PromptRegistry::new())
        .live()
        .build();
    let w = listening(&s);
    s.add_resource(Doc(ResourceInfo::new("test://doc", "doc"))).unwrap();
    assert_eq!(
        w.take(),
        [r#"{"jsonrpc":"2.0","method":"notifications/resources/list_changed","params":{}}"#]
    );
    w.send(r#"{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"test://doc"}}"#);
    assert_eq!(
        w.wait(1).await,
        [r#"{"jsonrpc":"2.0","id":1,"result":{"contents":[{"uri":"test://doc","text":"doc"}]}}"#]
    );
    assert!(s.remove_resource("test://doc").unwrap());
    assert_eq!(w.take().len(), 1);
    assert_eq!(
        w.ask(r#"{"jsonrpc":"2.0","id":2,"method":"resources/read","params":{"uri":"test://doc"}}"#),
        r#"{"jsonrpc":"2.0","id":2,"error":{"code":-32002,"message":"resource 'test://doc' not found","data":{"uri":"test://doc"}}}"#
    );

    s.add_prompt(Hello(PromptInfo::new("hello"))).unwrap();
    assert_eq!(w.take(), [r#"{"jsonrpc":"2.0","method":"notifications/prompts/list_changed","params":{}}"#]);
    assert!(w.ask(r#"{"jsonrpc":"2.0","id":3,"method":"prompts/list"}"#).contains(r#""name":"hello""#));
    assert!(s.remove_prompt("hello").unwrap());
    assert_eq!(w.take().len(), 1);
    assert_eq!(
        w.ask(r#"{"jsonrpc":"2.0","id":4,"method":"prompts/get","params":{"name":"hello"}}"#),
        r#"{"jsonrpc":"2.0","id":4,"error":{"code":-32602,"message":"unknown prompt 'hello'; available prompts: []"}}"#
    );
}

#[tokio::test]
async fn listens_take_no_slot_and_outlive_the_deadline() {
    // One slot, a 50 ms deadline: three listens must all be acknowledged and keep hearing
    // changes after the deadline, and a call must still get the one slot.
    let s = live_server(options().max_in_flight(1).deadline(Some(Duration::from_millis(50))));
    let listens: Vec<Wire> = (0..3).map(|_| Wire::new(&s)).collect();
    for (i, w) in listens.iter().enumerate() {
        w.send(&format!(
            r#"{{"jsonrpc":"2.0","id":"L{i}","method":"subscriptions/listen","params":{{{MODERN},"notifications":{{"toolsListChanged":true}}}}}}"#
        ));
        let ack = w.wait(1).await;
        assert!(ack[0].contains("notifications/subscriptions/acknowledged"), "{ack:?}");
    }
    tokio::time::sleep(Duration::from_millis(120)).await;
    let caller = listening(&s);
    caller.send(&call(9, "echo", ""));
    let answer = caller.wait(1).await;
    assert!(answer[0].starts_with(r#"{"jsonrpc":"2.0","id":9,"result":"#), "{answer:?}");
    s.add_tool(tool("extra")).unwrap();
    for (i, w) in listens.iter().enumerate() {
        assert_eq!(
            w.wait(1).await,
            [format!(
                r#"{{"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{{"_meta":{{"io.modelcontextprotocol/subscriptionId":"L{i}"}}}}}}"#
            )]
        );
    }
}
