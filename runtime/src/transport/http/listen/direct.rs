//! `POST /mcp` answered without axum's router, on toolwire's own listener (`accept`, for
//! [`http::serve`](crate::http::serve)); every other request goes through the router
//! as before.
//!
//! A request that axum routes to `post` passes through the router's path and method
//! look-ups, a map of URL parameters made for it (`/mcp` has none), two boxed futures of
//! about 1 KB each, and a `Content-Length` header the router formats and inserts, which
//! hyper writes by itself for a body of known length. Together about 3,700 instructions
//! and seven allocations of a stateless `tools/call`'s 35,000 and 30 (callgrind and dhat,
//! bench/findings.md, session 25). Here the listener calls `post` itself, with what the
//! router would hand it (the endpoint and the request; the body as hyper made it, not
//! boxed as axum's `Body`), and does what the drain's layer would do around it
//! (`drain::admit`, when the request is handed over). Only `POST` to exactly
//! `/mcp` takes this way, the same requests the router sends to `post` (it matches the
//! path as it came, undecoded, and the query is not part of it); an app that mounts
//! [`mcp_router`](crate::http::mcp_router) itself gets the router's way, answering the same.

use std::sync::Arc;

use axum::body::{Bytes, HttpBody};
use axum::extract::State;
use axum::http::Method;
use axum::response::Response;
use axum::{BoxError, Router};
use futures_util::FutureExt as _;
use futures_util::future::Either;

use super::accept::Answer;
use crate::transport::http::drain;
use crate::transport::http::endpoint::{Endpoint, MCP_PATH};
use crate::transport::http::post::post;
use crate::transport::http::read::inbound::unread;
use crate::transport::http::response::holding;

/// The MCP endpoint's router, and the endpoint its `POST /mcp` is answered by directly.
#[derive(Clone)]
pub(crate) struct Direct {
    router: Router,
    endpoint: Arc<Endpoint>,
}

impl Direct {
    pub(crate) fn new(router: Router, endpoint: Arc<Endpoint>) -> Direct {
        Direct { router, endpoint }
    }
}

impl Answer for Direct {
    fn answer<B>(&self, request: hyper::Request<B>) -> impl Future<Output = Response> + Send + use<B>
    where
        B: HttpBody<Data = Bytes> + Send + 'static,
        B::Error: Into<BoxError>,
    {
        // Combinators, not an `async` block: a block would hold the request and the
        // future it becomes side by side, and the listener and hyper move this future.
        if request.method() != Method::POST || request.uri().path() != MCP_PATH {
            return Either::Right(self.router.answer(request));
        }
        let endpoint = Arc::clone(&self.endpoint);
        let flight = match &endpoint.config.drain {
            Some(drain) => match drain::admit(drain) {
                Ok(flight) => Some(flight),
                Err(refused) => {
                    // The body unread, as every early answer (module `read::inbound`).
                    let (parts, body) = request.into_parts();
                    let max_body = endpoint.config.max_body;
                    let answer = async move { unread(refused, body, max_body, &parts.headers).await };
                    return Either::Left(Either::Right(Box::pin(answer)));
                }
            },
            None => None,
        };
        Either::Left(Either::Left(post(State(endpoint), request).map(move |response| match flight {
            Some(flight) => response.map(|body| holding(body, flight)),
            None => response,
        })))
    }
}

#[cfg(test)]
mod tests {
    use axum::body::{Body, to_bytes};
    use axum::http::{StatusCode, header};

    use super::*;
    use crate::ToolRegistry;
    use crate::server::{Server, ServerOptions};
    use crate::transport::http::{Auth, Drain, HttpConfig, mcp_service};

    const LIST: &str = r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}"#;

    fn request(method: Method, path: &str, body: &str) -> hyper::Request<Body> {
        hyper::Request::builder()
            .method(method)
            .uri(path)
            .header(header::HOST, "127.0.0.1")
            .header(header::ACCEPT, "application/json, text/event-stream")
            .header(header::CONTENT_TYPE, "application/json")
            .body(Body::from(body.to_owned()))
            .expect("a request")
    }

    async fn text(response: Response) -> String {
        let bytes = to_bytes(response.into_body(), usize::MAX).await.expect("the body");
        String::from_utf8(bytes.to_vec()).expect("UTF-8")
    }

    #[tokio::test]
    async fn a_direct_post_is_counted_by_the_drain_and_refused_once_it_began() {
        let drain = Drain::new();
        let config = HttpConfig::new(Auth::None).stateless(true).drain(drain.clone());
        let server = Server::new(ToolRegistry::new(), ServerOptions::new("direct", "0.1.0"));
        let direct = mcp_service(server, config, false);
        let answered = direct.answer(request(Method::POST, "/mcp", LIST)).await;
        assert_eq!(answered.status(), StatusCode::OK);
        assert_eq!(drain.in_flight(), 1, "in flight until its body is written or dropped");
        assert!(text(answered).await.contains(r#""tools":[]"#));
        assert_eq!(drain.in_flight(), 0);
        // What is not `POST /mcp` takes the router: the drain's probes are there.
        let healthz = direct.answer(request(Method::GET, "/healthz", "")).await;
        assert_eq!((healthz.status(), text(healthz).await.as_str()), (StatusCode::OK, "ok"));
        drain.begin();
        let refused = direct.answer(request(Method::POST, "/mcp", LIST)).await;
        assert_eq!(refused.status(), StatusCode::SERVICE_UNAVAILABLE);
        assert_eq!(refused.headers().get(header::CONNECTION).map(|v| v.as_bytes()), Some(&b"close"[..]));
        assert!(text(refused).await.contains("this replica is draining"));
        assert_eq!(drain.in_flight(), 0, "a refused request is not in flight");
    }
}
