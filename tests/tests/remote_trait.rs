//! `#[toolwire::remote]`: one trait, both sides. `MathClient` (from
//! `toolwire_tests::remote_math`) binds to the same trait's local impl served by a real
//! toolwire server, over stdio (the `remote-math` child process) and loopback HTTP; to peers
//! nobody on this team wrote (the Python SDK's FastMCP, server-everything); and refuses, at
//! `bind`, servers whose schemas differ, naming the method, the parameter and why.

mod client_support;

use client_support::{everything, fixture, peer};
use toolwire::Server;
use toolwire::client::{BindError, Client, ClientOptions, HttpServer, StdioServer, UntrustedText};
use toolwire::spec::SpecOptions;
use toolwire::tool::RemoteError;
use toolwire::{ServerOptions, ToolError, serve_registry};
use toolwire_tests::remote_math::{Local, Math, MathClient};

fn math_server() -> StdioServer {
    StdioServer::new(env!("CARGO_BIN_EXE_remote-math"))
}

/// Code written against the trait, not against a client.
async fn total(math: &impl Math, xs: &[i64]) -> Result<i64, ToolError> {
    let mut sum = 0;
    for &x in xs {
        sum = math.add(sum, x).await?;
    }
    Ok(sum)
}

/// Every method of `math`, as the shared tests below expect them.
async fn exercise(math: &impl Math, server: &str) {
    assert_eq!(math.add(2, 3).await.unwrap(), 5);
    assert_eq!(math.div(1.0, 4.0).await.unwrap(), 0.25);
    assert_eq!(math.greet("Ada".into(), None).await.unwrap(), "Hello, Ada");
    assert_eq!(math.greet("Ada".into(), Some("Dr".into())).await.unwrap(), "Hello, Dr Ada");
    assert_eq!(total(math, &[1, 2, 3, 4]).await.unwrap(), 10);
    // The served impl's error comes back as the method's error: the server's failure,
    // classified, with its report sealed as untrusted.
    let err = math.div(1.0, 0.0).await.unwrap_err();
    let ToolError::Remote(RemoteError::Failed { tool, server: from, envelope, .. }) = &err else {
        panic!("not a remote failure: {err:?}")
    };
    assert_eq!((tool.as_str(), from.as_str()), ("divide", server));
    assert_eq!(
        envelope,
        &format!(
            "<untrusted-data source=\"mcp\" server=\"{server}\" tool=\"divide\">\ntool 'divide' failed: division by zero\n</untrusted-data>"
        )
    );
    assert_eq!(
        err.to_string(),
        format!("tool 'divide' failed on server '{server}'; its report is in the untrusted-data envelope")
    );
    // The server's words, read from the error itself (still typed as untrusted): what the
    // local double's `Failed { message }` says.
    let report = UntrustedText::from_error(&err).unwrap();
    assert_eq!((report.server(), report.text()), (server, "tool 'divide' failed: division by zero"));
    // And the same words the local double gives, read the same way (`ToolError::reported`),
    // so code tested against `Local` reads a failure in production as it did in its tests.
    assert_eq!(err.reported(), Some("division by zero"));
    assert_eq!(err.reported(), Local.div(1.0, 0.0).await.unwrap_err().reported());
}

#[tokio::test]
async fn the_local_impl_is_a_test_double_for_the_same_code() {
    assert_eq!(total(&Local, &[1, 2, 3, 4]).await.unwrap(), 10);
    assert_eq!(Local.div(1.0, 0.0).await.unwrap_err().to_string(), "tool 'divide' failed: division by zero");
}

#[tokio::test]
async fn a_served_impl_advertises_what_bind_expects() {
    let registry = Math::tools(Local).unwrap();
    assert_eq!(registry.names().collect::<Vec<_>>(), ["add", "divide", "greet"]);
    let add = registry.get("add").unwrap().info();
    assert_eq!(add.description(), "Add two integers.");
    assert_eq!(
        add.input_schema().as_str(),
        r#"{"additionalProperties":false,"properties":{"a":{"format":"int64","maximum":9223372036854775807,"minimum":-9223372036854775808,"type":"integer"},"b":{"format":"int64","maximum":9223372036854775807,"minimum":-9223372036854775808,"type":"integer"}},"required":["a","b"],"type":"object"}"#
    );
    let greet = registry.get("greet").unwrap().info();
    assert_eq!(greet.input_schema().value()["required"], serde_json::json!(["name"]));
    let divide = registry.get("divide").unwrap().info();
    assert!(!divide.declarations().side_effecting, "`read_only` reached `#[tool]`");
    assert!(add.declarations().side_effecting, "the safe default");
}

#[tokio::test]
async fn bind_to_the_same_trait_served_over_stdio() {
    let client = Client::connect(math_server(), ClientOptions::new("math")).await.unwrap();
    let math = MathClient::bind(&client).await.unwrap();
    exercise(&math, "math").await;
    client.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bind_to_the_same_trait_served_over_loopback_http() {
    let mut spec = serve_registry(
        Server::new(Math::tools(Local).unwrap(), ServerOptions::new("calc", "0.1.0")),
        SpecOptions::http(),
    )
    .unwrap();
    spec.start().unwrap();
    let mut http = HttpServer::new(spec.url().unwrap());
    for (k, v) in spec.auth_headers() {
        http = http.header(k, v);
    }
    let client = Client::connect(http, ClientOptions::new("calc")).await.unwrap();
    let math = MathClient::bind(&client).await.unwrap().with_timeout(std::time::Duration::from_secs(10));
    exercise(&math, "calc").await;
    client.close().await;
    spec.stop();
}

/// The server's `add` takes two integers; these contracts say otherwise.
mod wrong {
    use toolwire::ToolError;

    #[toolwire::remote]
    pub trait Typed {
        async fn add(&self, a: i64, b: String) -> Result<i64, ToolError>;
    }

    #[toolwire::remote]
    pub trait Half {
        async fn add(&self, a: i64) -> Result<i64, ToolError>;
    }

    #[toolwire::remote]
    pub trait Extra {
        async fn add(&self, a: i64, b: i64, c: i64) -> Result<i64, ToolError>;
    }

    /// A list is structured output: its schema is checked against the server's.
    #[toolwire::remote]
    pub trait Output {
        async fn add(&self, a: i64, b: i64) -> Result<Vec<String>, ToolError>;
    }

    #[toolwire::remote]
    pub trait Missing {
        async fn add(&self, a: i64, b: i64) -> Result<i64, ToolError>;
        async fn mul(&self, a: i64, b: i64) -> Result<i64, ToolError>;
    }
}

#[tokio::test]
async fn a_server_whose_schema_differs_is_refused_at_bind_naming_the_method_and_parameter() {
    let client = Client::connect(math_server(), ClientOptions::new("math")).await.unwrap();
    let err = wrong::TypedClient::bind(&client).await.unwrap_err();
    assert_eq!(
        err.to_string(),
        "cannot bind `Typed::add` to tool 'add' of server 'math': 'b' is string in `Typed::add` but integer on the server"
    );
    assert_eq!(err.method(), "Typed::add");
    assert_eq!(
        wrong::HalfClient::bind(&client).await.unwrap_err().to_string(),
        "cannot bind `Half::add` to tool 'add' of server 'math': the server requires 'b', which `Half::add` does not always send"
    );
    assert_eq!(
        wrong::ExtraClient::bind(&client).await.unwrap_err().to_string(),
        "cannot bind `Extra::add` to tool 'add' of server 'math': `Extra::add` sends 'c', which the server does not accept"
    );
    assert_eq!(
        wrong::OutputClient::bind(&client).await.unwrap_err().to_string(),
        "cannot bind `Output::add` to tool 'add' of server 'math': 'result' is integer in the server's result but array in `Output::add`'s return type"
    );
    let err = wrong::MissingClient::bind(&client).await.unwrap_err();
    assert_eq!(
        err.to_string(),
        "cannot bind `Missing::mul`: server 'math' has no tool 'mul'. Its tools: ['add', 'divide', 'greet']"
    );
    assert!(matches!(err, BindError::NoSuchTool { .. }));
    client.close().await;
}

#[tokio::test]
async fn bind_to_the_python_sdks_fastmcp() {
    // FastMCP 1.22: `add(a: int, b: int) -> int`, with an outputSchema `{"result": integer}`.
    let server = StdioServer::new(peer("TOOLWIRE_PY_MCP1")).arg(fixture("client_fastmcp1.py"));
    let client = Client::connect(server, ClientOptions::new("demo")).await.unwrap();
    let listed = client.list_tools(false).await.unwrap();
    assert!(listed[0].output_schema.is_some(), "the peer advertises an outputSchema, so it is checked");

    #[toolwire::remote]
    trait Demo {
        /// Add two integers.
        async fn add(&self, a: i64, b: i64) -> Result<i64, ToolError>;
    }
    let demo = DemoClient::bind(&client).await.unwrap();
    assert_eq!(demo.add(2, 40).await.unwrap(), 42);
    assert_eq!(
        wrong::OutputClient::bind(&client).await.unwrap_err().to_string(),
        "cannot bind `Output::add` to tool 'add' of server 'demo': 'result' is integer in the server's result but array in `Output::add`'s return type"
    );
    assert_eq!(
        wrong::TypedClient::bind(&client).await.unwrap_err().to_string(),
        "cannot bind `Typed::add` to tool 'add' of server 'demo': 'b' is string in `Typed::add` but integer on the server"
    );
    client.close().await;
}

#[tokio::test]
async fn a_python_servers_failure_is_read_from_the_error() {
    // FastMCP 1.22's `divide` raises `ValueError("division by zero")`; the server answers
    // `isError` with its own wording, which the error carries unsealed in `reported()` (and
    // sealed in the envelope), while the message stays in toolwire's words.
    let server = StdioServer::new(peer("TOOLWIRE_PY_MCP1")).arg(fixture("remote_divide.py"));
    let client = Client::connect(server, ClientOptions::new("py-math")).await.unwrap();

    #[toolwire::remote]
    trait PyMath {
        /// Divide a by b.
        async fn divide(&self, a: f64, b: f64) -> Result<f64, ToolError>;
    }
    let math = PyMathClient::bind(&client).await.unwrap();
    assert_eq!(math.divide(1.0, 4.0).await.unwrap(), 0.25);
    let err = math.divide(1.0, 0.0).await.unwrap_err();
    assert_eq!(err.reported(), Some("Error executing tool divide: division by zero"));
    assert_eq!(
        err.to_string(),
        "tool 'divide' failed on server 'py-math'; its report is in the untrusted-data envelope"
    );
    client.close().await;
}

#[tokio::test]
async fn bind_to_server_everything() {
    let client = Client::connect(everything(), ClientOptions::new("everything")).await.unwrap();

    #[toolwire::remote]
    trait Everything {
        /// Echo a message back.
        async fn echo(&self, message: String) -> Result<String, ToolError>;
        /// Sum two numbers; the server answers in words.
        #[remote(name = "get-sum")]
        async fn sum(&self, a: f64, b: f64) -> Result<String, ToolError>;
    }
    let everything = EverythingClient::bind(&client).await.unwrap();
    assert_eq!(everything.echo("hi".into()).await.unwrap(), "Echo: hi");
    assert_eq!(everything.sum(2.0, 3.0).await.unwrap(), "The sum of 2 and 3 is 5.");

    #[toolwire::remote]
    trait Strings {
        #[remote(name = "get-sum")]
        async fn sum(&self, a: String, b: f64) -> Result<String, ToolError>;
    }
    assert_eq!(
        StringsClient::bind(&client).await.unwrap_err().to_string(),
        "cannot bind `Strings::sum` to tool 'get-sum' of server 'everything': 'a' is string in `Strings::sum` but number on the server"
    );
    client.close().await;
}
