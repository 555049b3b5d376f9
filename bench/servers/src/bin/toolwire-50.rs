//! toolwire's stdio server with 50 tools, `tool_0` .. `tool_49`, each an async
//! `#[toolwire::tool]` fn `(text) -> text`, served by `serve_registry!`. The bench calls
//! `tool_7`. Written out in full, as a user would write them.

/// Echo the text back (0).
#[toolwire::tool(read_only)]
async fn tool_0(
    /// The text to send back.
    text: String,
) -> String {
    text
}

/// Echo the text back (1).
#[toolwire::tool(read_only)]
async fn tool_1(
    /// The text to send back.
    text: String,
) -> String {
    text
}

/// Echo the text back (2).
#[toolwire::tool(read_only)]
async fn tool_2(
    /// The text to send back.
    text: String,
) -> String {
    text
}

/// Echo the text back (3).
#[toolwire::tool(read_only)]
async fn tool_3(
    /// The text to send back.
    text: String,
) -> String {
    text
}

/// Echo the text back (4).
#[toolwire::tool(read_only)]
async fn tool_4(
    /// The text to send back.
    text: String,
) -> String {
    text
}

/// Echo the text back (5).
#[toolwire::tool(read_only)]
async fn tool_5(
    /// The text to send back.
    text: String,
) -> String {
    text
}

/// Echo the text back (6).
#[toolwire::tool(read_only)]
async fn tool_6(
    /// The text to send back.
    text: String,
) -> String {
    text
}

/// Echo the text back (7).
#[toolwire::tool(read_only)]
async fn tool_7(
    /// The text to send back.
    text: String,
) -> String {
    text
}

/// Echo the text back (8).
#[toolwire::tool(read_only)]
async fn tool_8(
    /// The text to send back.
    text: String,
) -> String {
    text
}

/// Echo the text back (9).
#[toolwire::tool(read_only)]
async fn tool_9(
    /// The text to send back.
    text: String,
) -> String {
    text
}

/// Echo the text back (10).
#[toolwire::tool(read_only)]
async fn tool_10(
    /// The text to send back.
    text: String,
) -> String {
    text
}

/// Echo the text back (11).
#[toolwire::tool(read_only)]
async fn tool_11(
    /// The text to send back.
    text: String,
) -> String {
    text
}

/// Echo the text back (12).
#[toolwire::tool(read_only)]
async fn tool_12(
    /// The text to send back.
    text: String,
) -> String {
    text
}

/// Echo the text back (13).
#[toolwire::tool(read_only)]
async fn tool_13(
    /// The text to send back.
    text: String,
) -> String {
    text
}

/// Echo the text back (14).
#[toolwire::tool(read_only)]
async fn tool_14(
    /// The text to send back.
    text: String,
) -> String {
    text
}

/// Echo the text back (15).
#[toolwire::tool(read_only)]
async fn tool_15(
    /// The text to send back.
    text: String,
) -> String {
    text
}

/// Echo the text back (16).
#[toolwire::tool(read_only)]
async fn tool_16(
    /// The text to send back.
    text: String,
) -> String {
    text
}

/// Echo the text back (17).
#[toolwire::tool(read_only)]
async fn tool_17(
    /// The text to send back.
    text: String,
) -> String {
    text
}

/// Echo the text back (18).
#[toolwire::tool(read_only)]
async fn tool_18(
    /// The text to send back.
    text: String,
) -> String {
    text
}

/// Echo the text back (19).
#[toolwire::tool(read_only)]
async fn tool_19(
    /// The text to send back.
    text: String,
) -> String {
    text
}

/// Echo the text back (20).
#[toolwire::tool(read_only)]
async fn tool_20(
    /// The text to send back.
    text: String,
) -> String {
    text
}

/// Echo the text back (21).
#[toolwire::tool(read_only)]
async fn tool_21(
    /// The text to send back.
    text: String,
) -> String {
    text
}

/// Echo the text back (22).
#[toolwire::tool(read_only)]
async fn tool_22(
    /// The text to send back.
    text: String,
) -> String {
    text
}

/// Echo the text back (23).
#[toolwire::tool(read_only)]
async fn tool_23(
    /// The text to send back.
    text: String,
) -> String {
    text
}

/// Echo the text back (24).
#[toolwire::tool(read_only)]
async fn tool_24(
    /// The text to send back.
    text: String,
) -> String {
    text
}

/// Echo the text back (25).
#[toolwire::tool(read_only)]
async fn tool_25(
    /// The text to send back.
    text: String,
) -> String {
    text
}

/// Echo the text back (26).
#[toolwire::tool(read_only)]
async fn tool_26(
    /// The text to send back.
    text: String,
) -> String {
    text
}

/// Echo the text back (27).
#[toolwire::tool(read_only)]
async fn tool_27(
    /// The text to send back.
    text: String,
) -> String {
    text
}

/// Echo the text back (28).
#[toolwire::tool(read_only)]
async fn tool_28(
    /// The text to send back.
    text: String,
) -> String {
    text
}

/// Echo the text back (29).
#[toolwire::tool(read_only)]
async fn tool_29(
    /// The text to send back.
    text: String,
) -> String {
    text
}

/// Echo the text back (30).
#[toolwire::tool(read_only)]
async fn tool_30(
    /// The text to send back.
    text: String,
) -> String {
    text
}

/// Echo the text back (31).
#[toolwire::tool(read_only)]
async fn tool_31(
    /// The text to send back.
    text: String,
) -> String {
    text
}

/// Echo the text back (32).
#[toolwire::tool(read_only)]
async fn tool_32(
    /// The text to send back.
    text: String,
) -> String {
    text
}

/// Echo the text back (33).
#[toolwire::tool(read_only)]
async fn tool_33(
    /// The text to send back.
    text: String,
) -> String {
    text
}

/// Echo the text back (34).
#[toolwire::tool(read_only)]
async fn tool_34(
    /// The text to send back.
    text: String,
) -> String {
    text
}

/// Echo the text back (35).
#[toolwire::tool(read_only)]
async fn tool_35(
    /// The text to send back.
    text: String,
) -> String {
    text
}

/// Echo the text back (36).
#[toolwire::tool(read_only)]
async fn tool_36(
    /// The text to send back.
    text: String,
) -> String {
    text
}

/// Echo the text back (37).
#[toolwire::tool(read_only)]
async fn tool_37(
    /// The text to send back.
    text: String,
) -> String {
    text
}

/// Echo the text back (38).
#[toolwire::tool(read_only)]
async fn tool_38(
    /// The text to send back.
    text: String,
) -> String {
    text
}

/// Echo the text back (39).
#[toolwire::tool(read_only)]
async fn tool_39(
    /// The text to send back.
    text: String,
) -> String {
    text
}

/// Echo the text back (40).
#[toolwire::tool(read_only)]
async fn tool_40(
    /// The text to send back.
    text: String,
) -> String {
    text
}

/// Echo the text back (41).
#[toolwire::tool(read_only)]
async fn tool_41(
    /// The text to send back.
    text: String,
) -> String {
    text
}

/// Echo the text back (42).
#[toolwire::tool(read_only)]
async fn tool_42(
    /// The text to send back.
    text: String,
) -> String {
    text
}

/// Echo the text back (43).
#[toolwire::tool(read_only)]
async fn tool_43(
    /// The text to send back.
    text: String,
) -> String {
    text
}

/// Echo the text back (44).
#[toolwire::tool(read_only)]
async fn tool_44(
    /// The text to send back.
    text: String,
) -> String {
    text
}

/// Echo the text back (45).
#[toolwire::tool(read_only)]
async fn tool_45(
    /// The text to send back.
    text: String,
) -> String {
    text
}

/// Echo the text back (46).
#[toolwire::tool(read_only)]
async fn tool_46(
    /// The text to send back.
    text: String,
) -> String {
    text
}

/// Echo the text back (47).
#[toolwire::tool(read_only)]
async fn tool_47(
    /// The text to send back.
    text: String,
) -> String {
    text
}

/// Echo the text back (48).
#[toolwire::tool(read_only)]
async fn tool_48(
    /// The text to send back.
    text: String,
) -> String {
    text
}

/// Echo the text back (49).
#[toolwire::tool(read_only)]
async fn tool_49(
    /// The text to send back.
    text: String,
) -> String {
    text
}

fn main() {
    toolwire::serve_registry!(
        name = "toolwire-bench-50",
        tools = [
            tool_0, tool_1, tool_2, tool_3, tool_4, tool_5, tool_6, tool_7, tool_8, tool_9, tool_10, tool_11,
            tool_12, tool_13, tool_14, tool_15, tool_16, tool_17, tool_18, tool_19, tool_20, tool_21,
            tool_22, tool_23, tool_24, tool_25, tool_26, tool_27, tool_28, tool_29, tool_30, tool_31,
            tool_32, tool_33, tool_34, tool_35, tool_36, tool_37, tool_38, tool_39, tool_40, tool_41,
            tool_42, tool_43, tool_44, tool_45, tool_46, tool_47, tool_48, tool_49
        ],
    );
}
