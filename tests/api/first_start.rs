//! Postgres on first start: the database named in `DATABASE_URL` is
//! created when the server may, else the error says how.

use kaarttafel::config::{Database, Secret};
use kaarttafel::startup::Application;
use reqwest::{Method, StatusCode};
use sqlx::Connection;

use crate::support::{Scratch, TestApp, postgres_url, settings};

/// The server URL with another database name.
fn with_database(server: &str, name: &str) -> String {
    let (base, _) = server.rsplit_once('/').expect("URL with a database name");
    format!("{base}/{name}")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_service_creates_a_missing_postgres_database_on_first_start() {
    let Ok(server) = postgres_url() else { return };
    let name = format!("kt_test_{}", uuid::Uuid::new_v4().simple());
    let url = with_database(&server, &name);
    let scratch = Scratch::Postgres {
        admin: server.clone(),
        name: name.clone(),
    };
    let app = TestApp::start(
        settings(Database::Postgres(Secret::new(url))),
        Some(scratch),
    )
    .await;
    let ready = app.send(Method::GET, "/readyz", None, None).await;
    assert_eq!(ready.status, StatusCode::OK, "{}", ready.body);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_missing_database_the_user_may_not_create_names_the_command_that_creates_it() {
    let Ok(server) = postgres_url() else { return };
    let role = format!("kt_test_role_{}", uuid::Uuid::new_v4().simple());
    let mut admin = sqlx::PgConnection::connect(&server).await.unwrap();
    sqlx::query(sqlx::AssertSqlSafe(format!(
        "CREATE ROLE {role} LOGIN NOCREATEDB"
    )))
    .execute(&mut admin)
    .await
    .unwrap();
    let name = format!("kt_test_{}", uuid::Uuid::new_v4().simple());
    let url = with_database(&server, &name).replacen("postgres@", &format!("{role}@"), 1);
    assert!(
        url.contains(&role),
        "TEST_DATABASE_URL names the user postgres: {url}"
    );
    let started = Application::build(&settings(Database::Postgres(Secret::new(url)))).await;
    sqlx::query(sqlx::AssertSqlSafe(format!("DROP ROLE {role}")))
        .execute(&mut admin)
        .await
        .unwrap();
    let error = started
        .err()
        .expect("no database, no right to create it")
        .to_string();
    assert!(
        error.contains(&format!("\"{name}\" does not exist")),
        "{error}"
    );
    assert!(error.contains("createdb -h 127.0.0.1"), "{error}");
    assert!(error.contains(&format!("-U {role} '{name}'")), "{error}");
}
