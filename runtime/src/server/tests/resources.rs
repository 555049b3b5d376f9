//! The resources capability, driven through a session: lists, reads in both eras, the error
//! texts, and subscriptions (legacy and `subscriptions/listen`, which grants only what the
//! caller may read).

use super::*;
use crate::resource::{
    ReadFuture, Resource, ResourceError, ResourceInfo, ResourceRegistry, ResourceReturn, ResourceTemplate,
    TemplateInfo, UriTemplate,
};

struct Text(ResourceInfo, &'static str);

impl Resource for Text {
    fn info(&self) -> &ResourceInfo {
        &self.0
    }
    fn read<'a>(&'a self, _: &'a Context) -> ReadFuture<'a> {
        Box::pin(async move {
            if self.1 == "panic" {
                panic!("no disk");
            }
            self.1.to_owned().into_contents(self.0.uri(), self.0.mime_type())
        })
    }
}

struct Rows(TemplateInfo);

impl ResourceTemplate for Rows {
    fn info(&self) -> &TemplateInfo {
        &self.0
    }
    fn read<'a>(&'a self, uri: &'a str, vars: &'a [(String, String)], _: &'a Context) -> ReadFuture<'a> {
        Box::pin(async move {
            let id: u32 = vars[1].1.parse().map_err(|e| ResourceError::failed(uri, e))?;
            format!("{}#{id}", vars[0].1).into_contents(uri, None)
        })
    }
}

fn server() -> Server {
    Server::builder(options()).resources(registry()).build()
}

fn registry() -> ResourceRegistry {
    let mut registry = ResourceRegistry::new();
    registry
        .add(Text(ResourceInfo::new("test://text", "text").with_mime_type("text/plain"), "hello"))
        .unwrap();
    registry.add(Text(ResourceInfo::new("test://panics", "panics"), "panic")).unwrap();
    registry
        .add_template(Rows(TemplateInfo::new(UriTemplate::parse("db://{table}/rows/{id}").unwrap(), "rows")))
        .unwrap();
    registry
}

fn read(id: u32, uri: &str, extra: &str) -> String {
    format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"resources/read","params":{{"uri":"{uri}"{extra}}}}}"#)
}

#[tokio::test]
async fn resources_are_advertised_listed_and_read_in_both_eras() {
    let s = server();
    let w = Wire::new(&s);
    assert!(
        w.initialize("2025-11-25")
            .contains(r#""capabilities":{"resources":{"subscribe":true,"listChanged":false},"logging":{}}"#)
    );
    assert_eq!(
        w.ask(r#"{"jsonrpc":"2.0","id":1,"method":"resources/list"}"#),
        r#"{"jsonrpc":"2.0","id":1,"result":{"resources":[{"uri":"test://panics","name":"panics"},{"uri":"test://text","name":"text","mimeType":"text/plain"}]}}"#
    );
    assert_eq!(
        w.ask(r#"{"jsonrpc":"2.0","id":2,"method":"resources/templates/list"}"#),
        r#"{"jsonrpc":"2.0","id":2,"result":{"resourceTemplates":[{"uriTemplate":"db://{table}/rows/{id}","name":"rows"}]}}"#
    );
    w.send(&read(3, "test://text", ""));
    assert_eq!(
        w.wait(1).await,
        [
            r#"{"jsonrpc":"2.0","id":3,"result":{"contents":[{"uri":"test://text","mimeType":"text/plain","text":"hello"}]}}"#
        ]
    );
    w.send(&read(4, "db://users/rows/7", ""));
    assert_eq!(
        w.wait(1).await,
        [r#"{"jsonrpc":"2.0","id":4,"result":{"contents":[{"uri":"db://users/rows/7","text":"users#7"}]}}"#]
    );
    let m = Wire::new(&s);
    m.send(&read(5, "test://text", &format!(",{MODERN}")));
    assert_eq!(
        m.wait(1).await,
        [format!(
            r#"{{"jsonrpc":"2.0","id":5,"result":{{{SERVER_META},"resultType":"complete","contents":[{{"uri":"test://text","mimeType":"text/plain","text":"hello"}}],"ttlMs":0,"cacheScope":"private"}}}}"#
        )]
    );
}

#[tokio::test]
async fn unknown_uris_failed_reads_and_panics_read_as_errors_naming_the_uri() {
    let s = server();
    let w = Wire::new(&s);
    w.initialize("2025-11-25");
    assert_eq!(
        w.ask(&read(1, "test://nope", "")),
        r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32002,"message":"resource 'test://nope' not found","data":{"uri":"test://nope"}}}"#
    );
    assert_eq!(
        w.ask(&read(2, "test://nope", &format!(",{MODERN}"))),
        r#"{"jsonrpc":"2.0","id":2,"error":{"code":-32602,"message":"resource 'test://nope' not found","data":{"uri":"test://nope"}}}"#
    );
    w.send(&read(3, "db://users/rows/x", ""));
    assert_eq!(
        w.wait(1).await,
        [
            r#"{"jsonrpc":"2.0","id":3,"error":{"code":-32603,"message":"resource 'db://users/rows/x' could not be read: invalid digit found in string"}}"#
        ]
    );
    w.send(&read(4, "test://panics", ""));
    assert_eq!(
        w.wait(1).await,
        [
            r#"{"jsonrpc":"2.0","id":4,"error":{"code":-32603,"message":"resource 'test://panics' could not be read: panicked: no disk"}}"#
        ]
    );
}

#[tokio::test]
async fn legacy_subscriptions_need_a_served_uri_and_a_channel() {
    let s = server();
    let w = Wire::new(&s);
    w.initialize("2025-11-25");
    let sub = |id: u32, method: &str, uri: &str| {
        format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"resources/{method}","params":{{"uri":"{uri}"}}}}"#)
    };
    assert_eq!(
        w.ask(&sub(1, "subscribe", "test://text")),
        r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"invalid request: this session has no channel for notifications outside a call, so 'notifications/resources/updated' cannot be delivered"}}"#
    );
    w.session.set_notifier(w.sink.clone());
    assert_eq!(
        w.ask(&sub(2, "subscribe", "test://nope")),
        r#"{"jsonrpc":"2.0","id":2,"error":{"code":-32002,"message":"resource 'test://nope' not found","data":{"uri":"test://nope"}}}"#
    );
    assert_eq!(w.ask(&sub(3, "subscribe", "db://t/rows/1")), r#"{"jsonrpc":"2.0","id":3,"result":{}}"#);
    assert_eq!(s.notify_resource_updated("db://t/rows/1"), 1);
    assert_eq!(s.notify_resource_updated("test://text"), 0);
    assert_eq!(
        w.take(),
        [r#"{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"db://t/rows/1"}}"#]
    );
    assert_eq!(w.ask(&sub(4, "unsubscribe", "db://t/rows/1")), r#"{"jsonrpc":"2.0","id":4,"result":{}}"#);
    assert_eq!(s.notify_resource_updated("db://t/rows/1"), 0);
    drop(w);
}

/// On 2026-07-28 `resources/subscribe` and `unsubscribe` are removed methods: -32601 whatever
/// the params hold (the conformance suite sends only `_meta`), never a params error.
#[tokio::test]
async fn modern_subscribe_is_method_not_found_even_without_a_uri() {
    let s = server();
    let w = Wire::new(&s);
    for method in ["subscribe", "unsubscribe"] {
        for uri in ["", r#","uri":"test://text""#] {
            assert_eq!(
                w.ask(&format!(
                    r#"{{"jsonrpc":"2.0","id":1,"method":"resources/{method}","params":{{{MODERN}{uri}}}}}"#
                )),
                format!(
                    r#"{{"jsonrpc":"2.0","id":1,"error":{{"code":-32601,"message":"method 'resources/{method}' is not in protocol 2026-07-28: send subscriptions/listen with notifications.resourceSubscriptions"}}}}"#
                ),
                "{method} {uri}"
            );
        }
    }
}

#[tokio::test]
async fn listen_acknowledges_then_delivers_updates_until_cancelled() {
    let s = server();
    let w = Wire::new(&s);
    w.send(&format!(
        r#"{{"jsonrpc":"2.0","id":"L","method":"subscriptions/listen","params":{{{MODERN},"notifications":{{"toolsListChanged":true,"resourceSubscriptions":["test://text","test://nope"]}}}}}}"#
    ));
    assert_eq!(
        w.wait(1).await,
        [
            r#"{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":"L"},"notifications":{"resourceSubscriptions":["test://text"]}}}"#
        ]
    );
    assert_eq!(s.notify_resource_updated("test://text"), 1);
    assert_eq!(
        w.take(),
        [
            r#"{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":"L"},"uri":"test://text"}}"#
        ]
    );
    w.send(r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"L"}}"#);
    for _ in 0..100 {
        if s.notify_resource_updated("test://text") == 0 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    assert_eq!(s.notify_resource_updated("test://text"), 0);
    assert!(w.take().iter().all(|m| !m.contains(r#""id":"L""#)), "a cancelled listen gets no response");
}

#[tokio::test]
async fn listen_grants_no_subscription_to_a_resource_the_caller_may_not_read() {
    use crate::principal::Principal;
    use crate::server::{Access, Require};
    let s = Server::builder(options())
        .resources(registry())
        .host_principal(Principal::new("guest"))
        .authorize(Access::new().resource("test://text", Require::scopes(["read"])))
        .build();
    let w = Wire::new(&s);
    w.send(&format!(
        r#"{{"jsonrpc":"2.0","id":"L","method":"subscriptions/listen","params":{{{MODERN},"notifications":{{"resourceSubscriptions":["test://text","test://panics","test://nope"]}}}}}}"#
    ));
    // Acknowledged as if `test://text` did not exist, as `test://nope` does not.
    assert_eq!(
        w.wait(1).await,
        [
            r#"{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":"L"},"notifications":{"resourceSubscriptions":["test://panics"]}}}"#
        ]
    );
    assert_eq!(s.notify_resource_updated("test://text"), 0, "nobody watches what they may not read");
    assert_eq!(s.notify_resource_updated("test://panics"), 1);
}
