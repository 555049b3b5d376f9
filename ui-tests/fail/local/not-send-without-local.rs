use std::rc::Rc;

/// Holds an `Rc` across an await.
#[toolwire::tool(read_only)]
async fn t() -> String {
    let shared = Rc::new(String::new());
    tokio::task::yield_now().await;
    (*shared).clone()
}

fn main() {}
