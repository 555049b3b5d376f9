use toolwire::ToolError;

struct Reading {
    value: f64,
}

#[toolwire::remote]
trait Sensor {
    /// Read the sensor.
    async fn read(&self) -> Result<Reading, ToolError>;
}

fn main() {}
