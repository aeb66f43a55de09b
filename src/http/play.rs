//! The table in the browser: `GET /play`, a small page built only on the
//! public API (plain ES modules in `src/http/play/`, embedded in the binary
//! at build time). It is no part of the API, so it is not in the OpenAPI
//! document.
//!
//! Every URL the page uses is relative to where it is served (`play/app.js`
//! from `/play`, the API at `../v1/` from the scripts), so it works under
//! `PATH_PREFIX` as it does at the root.

use actix_web::http::header::{self, CacheControl, CacheDirective};
use actix_web::{HttpRequest, HttpResponse, web};

use super::error::ApiError;

/// One embedded file: its name under `/play/`, its content type, its bytes.
struct Asset {
    name: &'static str,
    content_type: &'static str,
    body: &'static str,
}

const JS: &str = "text/javascript; charset=utf-8";

/// The page, then its scripts and style sheet.
const ASSETS: [Asset; 7] = [
    Asset {
        name: "",
        content_type: "text/html; charset=utf-8",
        body: include_str!("play/index.html"),
    },
    Asset {
        name: "app.js",
        content_type: JS,
        body: include_str!("play/app.js"),
    },
    Asset {
        name: "api.js",
        content_type: JS,
        body: include_str!("play/api.js"),
    },
    Asset {
        name: "cards.js",
        content_type: JS,
        body: include_str!("play/cards.js"),
    },
    Asset {
        name: "table.js",
        content_type: JS,
        body: include_str!("play/table.js"),
    },
    Asset {
        name: "i18n.js",
        content_type: JS,
        body: include_str!("play/i18n.js"),
    },
    Asset {
        name: "style.css",
        content_type: "text/css; charset=utf-8",
        body: include_str!("play/style.css"),
    },
];

/// The page may load only its own scripts and style, and talk only to its
/// own origin: nothing a game's data could inject would run.
const CONTENT_SECURITY_POLICY: &str = "default-src 'none'; script-src 'self'; style-src 'self'; \
     connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; \
     frame-ancestors 'none'";

/// Registers `/play` (the page), `/play/` (sent to `/play`, so relative
/// URLs resolve the same) and `/play/{file}` (its assets).
pub fn routes(config: &mut web::ServiceConfig) {
    config
        .route("/play", web::get().to(page))
        .route("/play/", web::get().to(without_slash))
        .route("/play/{file}", web::get().to(asset));
}

async fn page() -> HttpResponse {
    serve(&ASSETS[0])
}

/// `/play/` would resolve the page's `play/app.js` to `/play/play/app.js`.
async fn without_slash(request: HttpRequest) -> HttpResponse {
    HttpResponse::PermanentRedirect()
        .insert_header((header::LOCATION, request.path().trim_end_matches('/')))
        .finish()
}

async fn asset(file: web::Path<String>) -> Result<HttpResponse, ApiError> {
    ASSETS[1..]
        .iter()
        .find(|asset| asset.name == file.as_str())
        .map(serve)
        .ok_or_else(|| ApiError::not_found("no such file"))
}

fn serve(asset: &Asset) -> HttpResponse {
    HttpResponse::Ok()
        .content_type(asset.content_type)
        // Embedded in this binary: revalidated, so an upgrade shows at once.
        .insert_header(CacheControl(vec![CacheDirective::NoCache]))
        .insert_header((header::X_CONTENT_TYPE_OPTIONS, "nosniff"))
        .insert_header((header::CONTENT_SECURITY_POLICY, CONTENT_SECURITY_POLICY))
        .body(asset.body)
}
