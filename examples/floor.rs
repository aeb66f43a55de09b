//! The stack's floor under a move's pattern of work: an HTTP server with no
//! game in it, on the service's own stack (actix-web, the store's per-worker
//! pools through sqlx's `Any` driver, mimalloc), whose one route runs
//! statements that keep Postgres as busy as a move's do, and answers a body
//! the size of a view. Measured with wrk by `tools/cpu_floor.sh` (docs/
//! benchmarks.md, "The stack's floor at a move's pace"): what the service's
//! CPU per move cannot go below on the machine, whatever the game code does.
//!
//! `GET /floor/{statements}` runs `statements` (0 to 3) statements on one
//! connection, each `SELECT count(*) FROM generate_series(1, WORK)`, and
//! answers `BODY` bytes.
//!
//! ```text
//! DATABASE_URL=postgres://postgres@127.0.0.1:5432/floor PORT=8090 WORK=4000 \
//!     cargo run --release --example floor
//! ```
//!
//! `WORKERS` (default the available parallelism), `WORK` (rows, default
//! 4000), `BODY` (bytes, default 4096).

use std::time::Duration;

use actix_web::{App, HttpResponse, HttpServer, web};
use kaarttafel::config::{Database, Secret};
use kaarttafel::store::Store;

#[global_allocator]
static GLOBAL: kaarttafel::allocator::MiMalloc = kaarttafel::allocator::MiMalloc;

struct Floor {
    store: Store,
    work: i64,
    body: web::Bytes,
}

async fn floor(state: web::Data<Floor>, statements: web::Path<u8>) -> HttpResponse {
    let statements = statements.into_inner();
    if statements > 3 {
        return HttpResponse::BadRequest().finish();
    }
    let mut conn = match state.store.acquire().await {
        Ok(conn) => conn,
        Err(_) => return HttpResponse::ServiceUnavailable().finish(),
    };
    for _ in 0..statements {
        let counted: Result<i64, _> =
            sqlx::query_scalar("SELECT count(*) FROM generate_series(1, CAST($1 AS BIGINT))")
                .bind(state.work)
                .fetch_one(&mut *conn)
                .await;
        if counted.is_err() {
            return HttpResponse::ServiceUnavailable().finish();
        }
    }
    HttpResponse::Ok()
        .content_type("application/json")
        .body(state.body.clone())
}

fn setting<T: std::str::FromStr>(name: &str, default: T) -> T {
    match std::env::var(name) {
        Ok(value) => value
            .parse()
            .unwrap_or_else(|_| panic!("{name}: not a valid number: {value}")),
        Err(_) => default,
    }
}

#[actix_web::main]
async fn main() -> std::io::Result<()> {
    let url = std::env::var("DATABASE_URL").expect("DATABASE_URL: a Postgres server");
    let port: u16 = setting("PORT", 8090);
    let workers: usize = setting(
        "WORKERS",
        std::thread::available_parallelism().map_or(1, |n| n.get()),
    );
    let work: i64 = setting("WORK", 4000);
    let body_bytes: usize = setting("BODY", 4096);
    let store = Store::connect(
        &Database::Postgres(Secret::new(url)),
        Duration::from_secs(5),
    )
    .await
    .map_err(std::io::Error::other)?;
    // A JSON string of the size asked for, as a view is JSON.
    let mut body = vec![b'x'; body_bytes.max(2)];
    body[0] = b'"';
    *body.last_mut().expect("two bytes at least") = b'"';
    let body = web::Bytes::from(body);
    HttpServer::new(move || {
        App::new()
            .app_data(web::Data::new(Floor {
                store: store.for_worker(workers),
                work,
                body: body.clone(),
            }))
            .route("/floor/{statements}", web::get().to(floor))
            // Answers once the store is connected, as the service's does.
            .route("/readyz", web::get().to(HttpResponse::Ok))
    })
    .workers(workers)
    .bind(("127.0.0.1", port))?
    .run()
    .await
}
