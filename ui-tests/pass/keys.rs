//! Every attribute key, and the safe default.
use toolwire::{Tool, tool};

/// Say nothing: side-effecting.
#[tool]
fn unstated() {}

/// Every key.
#[tool(
    name = "deploy.prod",
    title = "Deploy",
    description = "Deploy the build.",
    side_effecting,
    requires_approval,
    caps = ["egress", "deploy"],
    idempotent,
    open_world
)]
async fn deploy() {}

/// Read-only said the other way.
#[tool(side_effecting = false, requires_approval = false)]
fn reader() {}

fn main() {
    let d = unstated {}.info().declarations().clone();
    assert!(d.side_effecting && !d.requires_approval && d.caps.is_empty());
    let info = deploy {}.info();
    assert_eq!(info.name(), "deploy.prod");
    assert_eq!(info.title(), Some("Deploy"));
    assert_eq!(info.description(), "Deploy the build.");
    assert_eq!(info.declarations().caps, ["deploy", "egress"]);
    assert!(info.declarations().idempotent && info.declarations().open_world);
    let a = info.annotations();
    assert!(!a.read_only_hint && !a.destructive_hint && a.idempotent_hint && a.open_world_hint);
    assert!(reader {}.info().annotations().read_only_hint);
}
