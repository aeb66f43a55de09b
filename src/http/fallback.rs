//! What answers a request no route took: 405 with `Allow` when the path is
//! one of ours and only the method is wrong, else 404.

use std::sync::OnceLock;

use actix_web::{HttpRequest, HttpResponse, web};

use super::error::ApiError;
use super::openapi::openapi;
use super::state::AppState;

type Routes = Vec<(Vec<String>, Vec<&'static str>)>;

static ROUTES: OnceLock<Routes> = OnceLock::new();

/// Every documented path template with the methods it answers, taken from
/// the OpenAPI document so the two cannot disagree.
fn routes() -> &'static Routes {
    ROUTES.get_or_init(|| table(&openapi()))
}

/// Learns the routes from the document the server built at start, so that
/// the first unknown path does not build the document again.
pub fn learn_routes(api: &utoipa::openapi::OpenApi) {
    let _ = ROUTES.get_or_init(|| table(api));
}

fn table(api: &utoipa::openapi::OpenApi) -> Routes {
    api.paths
        .paths
        .iter()
        .map(|(template, item)| {
            let segments = template.split('/').map(str::to_owned).collect();
            let methods = [
                ("GET", item.get.is_some()),
                ("POST", item.post.is_some()),
                ("PUT", item.put.is_some()),
                ("PATCH", item.patch.is_some()),
                ("DELETE", item.delete.is_some()),
            ]
            .into_iter()
            .filter_map(|(method, present)| present.then_some(method))
            .collect();
            (segments, methods)
        })
        .collect()
}

/// The methods `path` answers, if it is one of ours (a `{param}` segment
/// matches any one segment; a literal one beats it, as in routing).
pub fn allowed_methods(path: &str) -> Vec<&'static str> {
    let segments: Vec<&str> = path.split('/').collect();
    let mut allowed: Vec<&'static str> = Vec::new();
    for (template, methods) in routes() {
        let matches = template.len() == segments.len()
            && template
                .iter()
                .zip(&segments)
                .all(|(t, s)| t == s || (t.starts_with('{') && !s.is_empty()));
        if matches {
            for method in methods {
                if !allowed.contains(method) {
                    allowed.push(method);
                }
            }
        }
    }
    allowed
}

/// The app's default service.
pub async fn no_route(req: HttpRequest) -> Result<HttpResponse, ApiError> {
    let prefix = req
        .app_data::<web::Data<AppState>>()
        .map(|state| state.app.path_prefix.clone())
        .unwrap_or_default();
    let allowed = req
        .path()
        .strip_prefix(prefix.as_str())
        .map(allowed_methods)
        .unwrap_or_default();
    if allowed.is_empty() {
        Err(ApiError::not_found("no such route"))
    } else {
        Err(ApiError::MethodNotAllowed(allowed.join(", ")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_known_path_lists_its_methods_and_an_unknown_one_none() {
        assert_eq!(allowed_methods("/v1/games"), ["GET", "POST"]);
        assert_eq!(allowed_methods("/v1/games/abc/seats/me"), ["DELETE"]);
        assert_eq!(allowed_methods("/v1/games/abc/seats"), ["POST"]);
        assert!(allowed_methods("/v1/nothing").is_empty());
        assert!(allowed_methods("/v1/games/abc/seats/me/x").is_empty());
    }
}
