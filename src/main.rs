//! Reads the configuration, starts telemetry and runs the server.

use kaarttafel::config::Settings;
use kaarttafel::startup::{Application, schedule_threads};

/// mimalloc rather than glibc's malloc: the server allocates and frees many
/// small short-lived buffers on every request from several worker threads,
/// the load mimalloc's per-thread free lists are built for.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    let settings = match Settings::from_env() {
        Ok(settings) => settings,
        Err(error) => {
            eprintln!("kaarttafel: {error}");
            return std::process::ExitCode::from(2);
        }
    };
    kaarttafel::telemetry::init();
    // Before the runtime starts its threads, so that they inherit it.
    if let Err(error) = schedule_threads(settings.cpu_scheduling) {
        tracing::warn!(%error, policy = ?settings.cpu_scheduling, "thread scheduling left as it was");
    }
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            tracing::error!(%error, "cannot start the runtime");
            return std::process::ExitCode::FAILURE;
        }
    };
    runtime.block_on(serve(&settings))
}

/// Builds the application and runs it until it stops.
async fn serve(settings: &Settings) -> std::process::ExitCode {
    let app = match Application::build(settings).await {
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
