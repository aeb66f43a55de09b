//! A Postgres `DATABASE_URL` naming one server or several, read the way
//! libpq reads a connection URI with a host list:
//! `postgres://user:pass@db1:5432,db2:5433/kaarttafel?target_session_attrs=read-write`.
//!
//! sqlx takes one host per URL, so the store opens each connection with the
//! URL of one host ([`PostgresUrl::for_host`]) and picks the host itself
//! (`store::primary`): the first of the list, in order, whose session is as
//! `target_session_attrs` asks.

use std::fmt;

/// What a server must be for its connections to be used
/// (`target_session_attrs`). The service writes, so only the values of
/// libpq that accept a writable server are taken.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SessionAttrs {
    /// `any`: whatever answers first (no check after connecting).
    Any,
    /// `read-write`, the default: `SHOW transaction_read_only` is `off`
    /// (not a standby, and not made read-only by
    /// `default_transaction_read_only`).
    ReadWrite,
    /// `primary`: not a standby (`pg_is_in_recovery()` is false).
    Primary,
}

impl SessionAttrs {
    fn parse(value: &str) -> Result<SessionAttrs, String> {
        match value {
            "any" => Ok(SessionAttrs::Any),
            "read-write" => Ok(SessionAttrs::ReadWrite),
            "primary" => Ok(SessionAttrs::Primary),
            "read-only" | "standby" | "prefer-standby" => Err(format!(
                "target_session_attrs={value}: the service writes, so it needs a server that \
                 accepts writes (read-write, the default, or primary)"
            )),
            other => Err(format!(
                "target_session_attrs={other}: expected read-write (the default), primary or any"
            )),
        }
    }
}

/// One server of the list.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Host {
    /// A name or an address; an IPv6 address in brackets (`[::1]`).
    pub name: String,
    /// The port the URL gives it; none: sqlx's default (`PGPORT`, else
    /// [`DEFAULT_PORT`]), as libpq does.
    pub port: Option<u16>,
}

impl fmt::Display for Host {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.port {
            Some(port) => write!(f, "{}:{port}", self.name),
            None => f.write_str(&self.name),
        }
    }
}

/// A parsed Postgres URL. It holds the password, so `Debug` shows only
/// the hosts.
#[derive(Clone, PartialEq, Eq)]
pub struct PostgresUrl {
    /// `postgres://` and the user part up to and including its `@`.
    head: String,
    /// The servers, in the order they are tried. Empty: the URL names no
    /// host (`postgres:///db`), and is handed to sqlx as it is.
    hosts: Vec<Host>,
    /// The path and the query, without `target_session_attrs`.
    tail: String,
    /// What a server must be.
    pub target: SessionAttrs,
}

impl fmt::Debug for PostgresUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PostgresUrl")
            .field("hosts", &self.hosts)
            .field("target", &self.target)
            .finish_non_exhaustive()
    }
}

impl PostgresUrl {
    /// Reads `url`; the error says what is wrong without repeating the URL
    /// (it may hold a password).
    pub fn parse(url: &str) -> Result<PostgresUrl, String> {
        let rest = ["postgres://", "postgresql://"]
            .iter()
            .find_map(|scheme| url.strip_prefix(scheme))
            .ok_or("expected postgres://… or postgresql://…")?;
        let scheme = &url[..url.len() - rest.len()];
        let authority_end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
        let (authority, tail) = rest.split_at(authority_end);
        let (user, hosts) = match authority.rfind('@') {
            Some(at) => authority.split_at(at + 1),
            None => ("", authority),
        };
        let hosts = if hosts.is_empty() {
            Vec::new()
        } else {
            hosts.split(',').map(parse_host).collect::<Result<_, _>>()?
        };
        let (tail, target) = parse_query(tail, hosts.len())?;
        Ok(PostgresUrl {
            head: format!("{scheme}{user}"),
            hosts,
            tail,
            target,
        })
    }

    /// The servers, in the order they are tried (none when the URL names
    /// none: sqlx's default, a local server).
    pub fn hosts(&self) -> &[Host] {
        &self.hosts
    }

    /// How many URLs [`PostgresUrl::for_host`] gives: one per host, and
    /// one for a URL without a host.
    pub fn len(&self) -> usize {
        self.hosts.len().max(1)
    }

    /// Always false: a URL names at least the default server.
    pub fn is_empty(&self) -> bool {
        false
    }

    /// The URL of the `index`-th server alone, as sqlx reads it: the same
    /// user, database and parameters, without `target_session_attrs`.
    pub fn for_host(&self, index: usize) -> String {
        match self.hosts.get(index) {
            Some(host) => format!("{}{host}{}", self.head, self.tail),
            None => format!("{}{}", self.head, self.tail),
        }
    }

    /// The `index`-th server as a log line shows it: `db2:5433`.
    pub fn host_text(&self, index: usize) -> String {
        match self.hosts.get(index) {
            Some(host) => host.to_string(),
            None => "the default server".to_owned(),
        }
    }

    /// The servers as a log line shows them: `db1:5432,db2:5433`.
    pub fn hosts_text(&self) -> String {
        if self.hosts.is_empty() {
            return "the default server".to_owned();
        }
        let names: Vec<String> = self.hosts.iter().map(Host::to_string).collect();
        names.join(",")
    }
}

/// `name`, `name:port`, `[v6]` or `[v6]:port`.
fn parse_host(text: &str) -> Result<Host, String> {
    let (name, port) = if let Some(v6) = text.strip_prefix('[') {
        let (address, after) = v6
            .split_once(']')
            .ok_or_else(|| format!("host `{text}`: an IPv6 address needs its closing `]`"))?;
        let port = match after {
            "" => None,
            after => Some(
                after
                    .strip_prefix(':')
                    .ok_or_else(|| format!("host `{text}`: expected `:PORT` after the address"))?,
            ),
        };
        (format!("[{address}]"), port)
    } else {
        match text.split_once(':') {
            Some((name, port)) => (name.to_owned(), Some(port)),
            None => (text.to_owned(), None),
        }
    };
    if name.is_empty() || name == "[]" {
        return Err(format!(
            "an empty host in the list `{text}`: separate the hosts with single commas"
        ));
    }
    let port = match port {
        None => None,
        Some(port) => match port.parse::<u16>() {
            Ok(port) if port > 0 => Some(port),
            _ => {
                return Err(format!(
                    "host `{text}`: the port is not a number from 1 to 65535"
                ));
            }
        },
    };
    Ok(Host { name, port })
}

/// Takes `target_session_attrs` out of the query of `tail` (the path and
/// the query). With several hosts in the URL, hosts or ports in the query
/// as well are refused, since they would say something else.
fn parse_query(tail: &str, hosts: usize) -> Result<(String, SessionAttrs), String> {
    let Some((path, query)) = tail.split_once('?') else {
        return Ok((tail.to_owned(), SessionAttrs::ReadWrite));
    };
    let mut target = SessionAttrs::ReadWrite;
    let mut kept = Vec::new();
    for pair in query.split('&').filter(|pair| !pair.is_empty()) {
        let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
        match key {
            "target_session_attrs" => target = SessionAttrs::parse(value)?,
            "host" | "hostaddr" | "port" if hosts > 1 || value.contains(',') => {
                return Err(format!(
                    "`{key}=` in the query: list the servers once, as \
                     postgres://user@host1:port1,host2:port2/db"
                ));
            }
            _ => kept.push(pair),
        }
    }
    let tail = if kept.is_empty() {
        path.to_owned()
    } else {
        format!("{path}?{}", kept.join("&"))
    };
    Ok((tail, target))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn host(name: &str, port: Option<u16>) -> Host {
        Host {
            name: name.to_owned(),
            port,
        }
    }

    #[test]
    fn a_host_list_is_read_in_order_with_each_hosts_port() {
        let url = PostgresUrl::parse(
            "postgres://u:p@db1:5432,db2:5433/kt?target_session_attrs=read-write",
        )
        .unwrap();
        assert_eq!(
            url.hosts(),
            [host("db1", Some(5432)), host("db2", Some(5433))]
        );
        assert_eq!(url.target, SessionAttrs::ReadWrite);
        assert_eq!(url.for_host(0), "postgres://u:p@db1:5432/kt");
        assert_eq!(url.for_host(1), "postgres://u:p@db2:5433/kt");
        assert_eq!(url.hosts_text(), "db1:5432,db2:5433");
        assert_eq!(url.len(), 2);
    }

    #[test]
    fn a_host_without_a_port_keeps_the_default_port() {
        let url = PostgresUrl::parse("postgresql://db1,db2:6000/kt").unwrap();
        assert_eq!(url.hosts(), [host("db1", None), host("db2", Some(6000))]);
        assert_eq!(url.for_host(0), "postgresql://db1/kt");
        assert_eq!(url.hosts_text(), "db1,db2:6000");
    }

    #[test]
    fn ipv6_hosts_keep_their_brackets() {
        let url = PostgresUrl::parse("postgres://u@[::1]:5433,[fe80::2]/kt").unwrap();
        assert_eq!(
            url.hosts(),
            [host("[::1]", Some(5433)), host("[fe80::2]", None)]
        );
        assert_eq!(url.for_host(1), "postgres://u@[fe80::2]/kt");
    }

    #[test]
    fn target_session_attrs_defaults_to_read_write_and_is_taken_out_of_the_query() {
        let plain = PostgresUrl::parse("postgres://u@db/kt?sslmode=require").unwrap();
        assert_eq!(plain.target, SessionAttrs::ReadWrite);
        assert_eq!(plain.for_host(0), "postgres://u@db/kt?sslmode=require");
        for (value, target) in [
            ("any", SessionAttrs::Any),
            ("read-write", SessionAttrs::ReadWrite),
            ("primary", SessionAttrs::Primary),
        ] {
            let url = PostgresUrl::parse(&format!(
                "postgres://u@db/kt?sslmode=disable&target_session_attrs={value}&application_name=x"
            ))
            .unwrap();
            assert_eq!(url.target, target);
            assert_eq!(
                url.for_host(0),
                "postgres://u@db/kt?sslmode=disable&application_name=x"
            );
        }
    }

    #[test]
    fn a_url_without_a_host_is_passed_on_as_it_is() {
        let url = PostgresUrl::parse("postgres:///kt?host=/run/postgresql").unwrap();
        assert!(url.hosts().is_empty());
        assert_eq!(url.len(), 1);
        assert_eq!(url.for_host(0), "postgres:///kt?host=/run/postgresql");
    }

    #[test]
    fn a_password_with_an_at_sign_or_colon_stays_in_the_user_part() {
        let url = PostgresUrl::parse("postgres://u:p%40ss:w@db1,db2/kt").unwrap();
        assert_eq!(url.hosts(), [host("db1", None), host("db2", None)]);
        assert_eq!(url.for_host(1), "postgres://u:p%40ss:w@db2/kt");
        assert!(
            !format!("{url:?}").contains("p%40ss"),
            "Debug hides the password"
        );
    }

    #[test]
    fn invalid_urls_are_refused_with_what_is_wrong() {
        for (url, says) in [
            ("mysql://db/kt", "expected postgres://"),
            (
                "postgres://u@db1:5432,db2:54x2/kt",
                "`db2:54x2`: the port is not a number",
            ),
            (
                "postgres://u@db1:0/kt",
                "the port is not a number from 1 to 65535",
            ),
            (
                "postgres://u@db1:70000/kt",
                "the port is not a number from 1 to 65535",
            ),
            ("postgres://u@db1,,db2/kt", "an empty host"),
            ("postgres://u@db1,:5433/kt", "an empty host"),
            ("postgres://u@[::1/kt", "closing `]`"),
            ("postgres://u@[::1]5432/kt", "expected `:PORT`"),
            (
                "postgres://u@db/kt?target_session_attrs=standby",
                "needs a server that accepts writes",
            ),
            (
                "postgres://u@db/kt?target_session_attrs=read-only",
                "needs a server that accepts writes",
            ),
            (
                "postgres://u@db/kt?target_session_attrs=fastest",
                "expected read-write",
            ),
            ("postgres://u@db1,db2/kt?port=5433", "list the servers once"),
            ("postgres://u@/kt?host=db1,db2", "list the servers once"),
        ] {
            let error = PostgresUrl::parse(url).expect_err(url);
            assert!(error.contains(says), "{url}: {error}");
            assert!(
                !error.contains("postgres://u@"),
                "{url}: the error repeats the URL"
            );
        }
    }
}
