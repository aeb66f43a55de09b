//! Whether the Postgres half of the API tests can run here. Each Postgres
//! test returns at once without a server; this one test makes that visible
//! in the summary line instead of letting them pass unseen.

use crate::support::postgres_url;

fn set(variable: &str) -> bool {
    std::env::var(variable).is_ok_and(|v| v == "1")
}

#[test]
fn postgres_is_available() {
    let Err(why) = postgres_url() else {
        return;
    };
    if set("SKIP_POSTGRES") && !set("REQUIRE_POSTGRES") {
        eprintln!("SKIPPED: every Postgres API test ({why}); SKIP_POSTGRES=1 asked for it");
        return;
    }
    panic!(
        "the Postgres API tests cannot run: {why}. Install Postgres (binaries under \
         /usr/lib/postgresql/*/bin; the tests start a cluster of their own) or set \
         TEST_DATABASE_URL to a server URL, or run with SKIP_POSTGRES=1 to skip them \
         knowingly{}",
        if set("REQUIRE_POSTGRES") {
            " (not with REQUIRE_POSTGRES=1)"
        } else {
            ""
        }
    );
}
