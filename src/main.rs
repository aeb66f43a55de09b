//! Reads the configuration, starts telemetry and runs the server.

use kaarttafel::config::Settings;
use kaarttafel::startup::Application;

/// The server's allocator: glibc's malloc and free were a tenth of the
/// service's CPU under load; mimalloc takes 5-10 % off the CPU per move
/// (docs/benchmarks.md, "Records shared, not copied"), more when asked as
/// [`kaarttafel::allocator`] asks.
#[global_allocator]
static ALLOCATOR: kaarttafel::allocator::MiMalloc = kaarttafel::allocator::MiMalloc;

#[tokio::main]
async fn main() -> std::process::ExitCode {
    let settings = match Settings::from_env() {
        Ok(settings) => settings,
        Err(error) => {
            eprintln!("kaarttafel: {error}");
            return std::process::ExitCode::from(2);
        }
    };
    kaarttafel::telemetry::init();
    let app = match Application::build(&settings).await {
        Ok(app) => app,
        Err(error) => {
            tracing::error!(%error, "cannot start");
            return std::process::ExitCode::FAILURE;
        }
    };
    tracing::info!(host = %settings.host, port = app.port(), "listening");
    match app.run().await {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(error) => {
            tracing::error!(%error, "server failed");
            std::process::ExitCode::FAILURE
        }
    }
}
