//! The client behind a reverse proxy. `X-Forwarded-For` and
//! `X-Forwarded-Proto` are believed only when the peer is a configured
//! trusted proxy; the result is for logs, never for authentication.

use std::net::IpAddr;

use actix_web::body::MessageBody;
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::{HttpMessage, web};
use ipnet::IpNet;
use tracing::Span;
use tracing_actix_web::{RequestId, RootSpanBuilder};

use super::metrics::route_of;

/// The proxies whose forwarding headers are believed.
#[derive(Clone, Debug, Default)]
pub struct TrustedProxies(pub Vec<IpNet>);

impl TrustedProxies {
    fn trusts(&self, address: IpAddr) -> bool {
        self.0.iter().any(|net| net.contains(&address))
    }

    /// The client's address: the peer, or, when the peer is trusted, the
    /// right-most address in `forwarded_for` that is not a trusted proxy.
    pub fn client(&self, peer: Option<IpAddr>, forwarded_for: Option<&str>) -> Option<IpAddr> {
        let peer = peer?;
        if !self.trusts(peer) {
            return Some(peer);
        }
        let Some(chain) = forwarded_for else {
            return Some(peer);
        };
        let mut client = peer;
        for hop in chain.rsplit(',').map(str::trim) {
            let Ok(address) = hop.parse::<IpAddr>() else {
                break;
            };
            client = address;
            if !self.trusts(address) {
                break;
            }
        }
        Some(client)
    }

    /// `http` or `https` as the client used it.
    pub fn scheme<'a>(
        &self,
        peer: Option<IpAddr>,
        forwarded_proto: Option<&'a str>,
        own: &'a str,
    ) -> &'a str {
        match (peer, forwarded_proto) {
            (Some(peer), Some(proto))
                if self.trusts(peer) && (proto == "http" || proto == "https") =>
            {
                proto
            }
            _ => own,
        }
    }
}

/// The root span of every request: method, route pattern, client, scheme and
/// the request id, which every log line of the request then carries.
pub struct RequestSpan;

/// No trusted proxies, for an app that names none.
pub(super) static NO_PROXIES: TrustedProxies = TrustedProxies(Vec::new());

/// The client's address and the scheme it used, as `request`'s log lines
/// give them. The connection's own scheme is the server's: actix-web's
/// `connection_info().scheme()` would take a client's `Forwarded` or
/// `X-Forwarded-Proto` header, whoever sent it.
fn client_and_scheme_of(request: &ServiceRequest) -> (Option<IpAddr>, &str) {
    let proxies = request
        .app_data::<web::Data<TrustedProxies>>()
        .map_or(&NO_PROXIES, |p| p.get_ref());
    let header = |name: &str| request.headers().get(name).and_then(|v| v.to_str().ok());
    let peer = request.peer_addr().map(|a| a.ip());
    let client = proxies.client(peer, header("x-forwarded-for"));
    let own_scheme = if request.app_config().secure() {
        "https"
    } else {
        "http"
    };
    let scheme = proxies.scheme(peer, header("x-forwarded-proto"), own_scheme);
    (client, scheme)
}

impl RootSpanBuilder for RequestSpan {
    fn on_request_start(request: &ServiceRequest) -> Span {
        // The fields are worked out only when the span is enabled (the
        // macro evaluates them then): with RUST_LOG=warn a request pays
        // for none of them. The client and scheme are worked out once for
        // their two fields.
        let once = std::cell::OnceCell::new();
        let client_and_scheme = || *once.get_or_init(|| client_and_scheme_of(request));
        tracing::info_span!(
            "request",
            request_id = %request
                .extensions()
                .get::<RequestId>()
                .map(ToString::to_string)
                .unwrap_or_default(),
            method = %request.method(),
            route = %route_of(request.request()),
            client = %client_and_scheme()
                .0
                .map(|c| c.to_string())
                .unwrap_or_default(),
            scheme = %client_and_scheme().1,
            status = tracing::field::Empty,
        )
    }

    fn on_request_end<B: MessageBody>(
        span: Span,
        outcome: &Result<ServiceResponse<B>, actix_web::Error>,
    ) {
        let status = match outcome {
            Ok(response) => response.response().status().as_u16(),
            Err(error) => error.as_response_error().status_code().as_u16(),
        };
        span.record("status", status);
        span.in_scope(|| tracing::info!(status, "answered"));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    #[test]
    fn forwarded_headers_of_an_untrusted_peer_are_ignored() {
        let proxies = TrustedProxies(vec!["10.0.0.1/32".parse().unwrap()]);
        assert_eq!(
            proxies.client(Some(ip("203.0.113.9")), Some("1.2.3.4")),
            Some(ip("203.0.113.9"))
        );
        assert_eq!(
            proxies.scheme(Some(ip("203.0.113.9")), Some("https"), "http"),
            "http"
        );
    }

    fn request_from(peer: &str, headers: &[(&str, &str)]) -> ServiceRequest {
        let mut request = actix_web::test::TestRequest::default()
            .peer_addr(std::net::SocketAddr::new(ip(peer), 40000))
            .app_data(web::Data::new(TrustedProxies(vec![
                "10.0.0.0/8".parse().unwrap(),
            ])));
        for header in headers {
            request = request.insert_header(*header);
        }
        request.to_srv_request()
    }

    #[test]
    fn an_untrusted_peer_is_logged_with_its_own_address_and_scheme_whatever_it_says() {
        for forwarded in [
            vec![
                ("x-forwarded-proto", "https"),
                ("x-forwarded-for", "1.2.3.4"),
            ],
            vec![("forwarded", "proto=https;for=1.2.3.4")],
        ] {
            let request = request_from("203.0.113.9", &forwarded);
            assert_eq!(
                client_and_scheme_of(&request),
                (Some(ip("203.0.113.9")), "http"),
                "{forwarded:?}"
            );
        }
    }

    #[test]
    fn a_trusted_proxy_is_believed_for_the_client_and_scheme() {
        let request = request_from(
            "10.0.0.1",
            &[
                ("x-forwarded-proto", "https"),
                ("x-forwarded-for", "198.51.100.7"),
            ],
        );
        assert_eq!(
            client_and_scheme_of(&request),
            (Some(ip("198.51.100.7")), "https")
        );
        let request = request_from("10.0.0.1", &[]);
        assert_eq!(
            client_and_scheme_of(&request),
            (Some(ip("10.0.0.1")), "http")
        );
    }

    /// Log lines, written by a subscriber at `level` while `f` runs.
    fn logged(level: tracing::Level, f: impl FnOnce()) -> String {
        #[derive(Clone, Default)]
        struct Lines(std::sync::Arc<std::sync::Mutex<Vec<u8>>>);
        impl std::io::Write for Lines {
            fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
                self.0.lock().unwrap().extend_from_slice(bytes);
                Ok(bytes.len())
            }
            fn flush(&mut self) -> std::io::Result<()> {
                Ok(())
            }
        }
        let lines = Lines::default();
        let writer = lines.clone();
        let subscriber = tracing_subscriber::fmt()
            .with_max_level(level)
            .with_ansi(false)
            .with_writer(move || writer.clone())
            .finish();
        tracing::subscriber::with_default(subscriber, f);
        String::from_utf8(lines.0.lock().unwrap().clone()).unwrap()
    }

    #[test]
    fn every_log_line_of_a_request_names_its_method_route_client_and_scheme() {
        let request = request_from(
            "10.0.0.1",
            &[
                ("x-forwarded-proto", "https"),
                ("x-forwarded-for", "198.51.100.7"),
            ],
        );
        let line = logged(tracing::Level::INFO, || {
            let span = RequestSpan::on_request_start(&request);
            span.in_scope(|| tracing::info!("handled"));
        });
        for field in [
            "request{",
            "method=GET",
            "route=unmatched",
            "client=198.51.100.7",
            "scheme=https",
            "handled",
        ] {
            assert!(line.contains(field), "{field} in {line}");
        }
        // Below the span's level it is disabled, and nothing is written.
        let line = logged(tracing::Level::WARN, || {
            let span = RequestSpan::on_request_start(&request);
            assert!(span.is_disabled());
            span.in_scope(|| tracing::warn!("handled"));
        });
        assert!(!line.contains("client="), "{line}");
    }

    /// A request is logged (at `info`) and counted (always) by its route
    /// pattern, never by its raw path.
    #[test]
    fn a_request_is_logged_and_counted_by_its_route_pattern_at_every_log_level() {
        use crate::http::metrics::RequestMetrics;
        use crate::metrics::Metrics;
        use actix_web::{App, HttpResponse, test};
        use std::sync::Arc;

        for level in [tracing::Level::INFO, tracing::Level::WARN] {
            let metrics = Arc::new(Metrics::default());
            let counted = Arc::clone(&metrics);
            let line = logged(level, || {
                actix_web::rt::System::new().block_on(async move {
                    let app = test::init_service(
                        App::new()
                            .route("/v1/games/{id}", web::get().to(HttpResponse::NoContent))
                            .wrap(RequestMetrics(counted))
                            .wrap(tracing_actix_web::TracingLogger::<RequestSpan>::new()),
                    )
                    .await;
                    for path in ["/v1/games/0b5e", "/v1/games/77aa", "/elsewhere"] {
                        test::call_service(&app, test::TestRequest::get().uri(path).to_request())
                            .await;
                    }
                });
            });
            let text = metrics.text().expect("metrics as text");
            for counted in [
                r#"kaarttafel_http_requests_total{method="GET",route="/v1/games/{id}",status="204"} 2"#,
                r#"kaarttafel_http_requests_total{method="GET",route="unmatched",status="404"} 1"#,
                r#"kaarttafel_http_request_duration_seconds_count{method="GET",route="/v1/games/{id}"} 2"#,
                r#"kaarttafel_http_request_duration_seconds_count{method="GET",route="unmatched"} 1"#,
            ] {
                assert!(text.contains(counted), "{level}: {counted} in {text}");
            }
            assert!(!text.contains("0b5e"), "{level}: no raw path in {text}");
            let logged_routes = line.matches("route=/v1/games/{id}").count();
            if level == tracing::Level::INFO {
                assert_eq!(logged_routes, 2, "{line}");
                assert!(line.contains("route=unmatched"), "{line}");
            } else {
                assert_eq!(line, "");
            }
        }
    }

    #[test]
    fn a_refused_move_is_logged_by_its_status_never_its_cards() {
        use crate::app::error::Error;
        use crate::http::error::ApiError;
        use actix_web::{App, test};

        for level in [tracing::Level::INFO, tracing::Level::WARN] {
            let line = logged(level, || {
                actix_web::rt::System::new().block_on(async move {
                    let refuse = || async {
                        Err::<actix_web::HttpResponse, _>(ApiError::App(Error::MoveRefused {
                            code: "card_not_in_hand",
                            detail: "2C is not in your hand".into(),
                            legal_moves: serde_json::json!([
                                {"type": "play", "card": "QC"},
                                {"type": "play", "card": "7D"}
                            ]),
                        }))
                    };
                    let app = test::init_service(
                        App::new()
                            .route("/v1/games/{id}/moves", web::post().to(refuse))
                            .wrap(tracing_actix_web::TracingLogger::<RequestSpan>::new()),
                    )
                    .await;
                    let request = test::TestRequest::post().uri("/v1/games/0b5e/moves");
                    let answer = test::call_service(&app, request.to_request()).await;
                    assert_eq!(answer.status().as_u16(), 422);
                });
            });
            for hidden in ["QC", "7D", "2C", "legal_moves", "not in your hand"] {
                assert!(!line.contains(hidden), "{level}: {hidden} in {line}");
            }
            if level == tracing::Level::INFO {
                assert!(line.contains("status=422"), "{line}");
            }
        }
    }

    #[test]
    fn a_trusted_proxy_names_the_client_right_to_left() {
        let proxies = TrustedProxies(vec!["10.0.0.0/8".parse().unwrap()]);
        let peer = Some(ip("10.0.0.1"));
        assert_eq!(
            proxies.client(peer, Some("198.51.100.7")),
            Some(ip("198.51.100.7"))
        );
        assert_eq!(
            proxies.client(peer, Some("6.6.6.6, 198.51.100.7, 10.0.0.2")),
            Some(ip("198.51.100.7"))
        );
        assert_eq!(proxies.client(peer, None), peer);
        assert_eq!(proxies.client(peer, Some("garbage")), peer);
        assert_eq!(proxies.scheme(peer, Some("https"), "http"), "https");
        assert_eq!(proxies.scheme(peer, Some("gopher"), "http"), "http");
    }
}
