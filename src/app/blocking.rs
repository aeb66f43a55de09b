//! Work that may take a while (a computer player thinking, the solver
//! analysing a deal) runs off the async workers, which meanwhile go on
//! serving requests and streams.

use super::error::Error;

/// Runs `work` on tokio's blocking pool, off the async workers. Whatever
/// runs here, the caller does not depend on how long it takes.
///
/// # Errors
/// [`Error::Internal`] if `work` panicked.
pub async fn off_the_workers<T: Send + 'static>(
    work: impl FnOnce() -> T + Send + 'static,
) -> Result<T, Error> {
    tokio::task::spawn_blocking(work)
        .await
        .map_err(|e| Error::Internal(format!("the work off the workers failed: {e}")))
}

#[cfg(test)]
mod tests {
    use std::sync::mpsc;
    use std::time::Duration;

    use super::off_the_workers;

    /// On a runtime with one worker thread, a decision that waits for
    /// another task can only end if it does not occupy that worker: were it
    /// run inline, the other task would never run and the wait would time
    /// out.
    #[test]
    fn a_decision_runs_off_the_async_workers_so_they_keep_serving() {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("a runtime");
        let served = runtime.block_on(async {
            let (tx, rx) = mpsc::channel::<&str>();
            let other = tokio::spawn(async move {
                tokio::task::yield_now().await;
                tx.send("served").expect("the decision waits");
            });
            let thought = off_the_workers(move || rx.recv_timeout(Duration::from_secs(30)))
                .await
                .expect("the decision ends");
            other.await.expect("the other task ends");
            thought
        });
        assert_eq!(served, Ok("served"));
    }

    /// A decision runs on another thread than the worker that awaits it.
    #[test]
    fn a_decision_runs_on_another_thread_than_the_scheduler() {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .build()
            .expect("a runtime");
        let worker = std::thread::current().id();
        let thinker = runtime
            .block_on(off_the_workers(|| std::thread::current().id()))
            .expect("the decision ends");
        assert_ne!(thinker, worker);
    }
}
