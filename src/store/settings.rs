//! Values the service generates once and keeps in the database.

use sqlx::AnyConnection;

/// The value stored under `name`, or `candidate` stored now if there was none.
/// When several instances start at once, all of them end up with the first
/// value written.
pub async fn get_or_insert(
    conn: &mut AnyConnection,
    name: &str,
    candidate: &str,
) -> Result<String, sqlx::Error> {
    sqlx::query(
        "INSERT INTO service_settings (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING",
    )
    .bind(name)
    .bind(candidate)
    .execute(&mut *conn)
    .await?;
    sqlx::query_scalar("SELECT value FROM service_settings WHERE name = $1")
        .bind(name)
        .fetch_one(conn)
        .await
}
