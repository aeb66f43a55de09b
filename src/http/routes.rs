//! Every route, listed once, for serving and for the OpenAPI document.

use utoipa_actix_web::scope;
use utoipa_actix_web::service_config::ServiceConfig;

use super::{
    bots, evenings, events, friends, games, health, hints, players, profiles, stream, subscriptions,
};

/// Every route, listed once: `$config` is either utoipa-actix-web's service
/// config (which also collects each route's OpenAPI path and schemas, for
/// the document) or actix-web's own (which does not, for serving), and
/// `$scope` the matching scope constructor.
macro_rules! register_routes {
    ($config:expr, $scope:path) => {
        $config
            .service(health::healthz)
            .service(health::readyz)
            .service(
                // A request is matched against the routes in this order, the
                // ones with a `{..}` segment by a regex each: the two of every
                // move (a view, then the move) come first. No route after
                // them matches what they match.
                $scope("/v1")
                    .service(games::get_game)
                    .service(games::make_move)
                    .service(players::create_player)
                    .service(players::me)
                    .service(players::renew_token)
                    .service(players::sign_out)
                    .service(players::my_games)
                    .service(games::create_game)
                    .service(games::lobby)
                    .service(games::take_seat)
                    .service(games::leave_seat)
                    .service(games::deal)
                    .service(bots::add_bot)
                    .service(bots::remove_bot)
                    .service(bots::back)
                    .service(events::game_events)
                    .service(stream::game_stream)
                    .service(hints::get_hint)
                    .service(hints::get_deal_analysis)
                    .service(friends::show_invite)
                    .service(friends::accept_invite)
                    .service(friends::quick_match)
                    .service(friends::rematch)
                    .service(profiles::rename)
                    .service(profiles::player_profile)
                    .service(subscriptions::subscribe)
                    .service(subscriptions::subscriptions)
                    .service(subscriptions::unsubscribe)
                    .service(subscriptions::vapid_public_key)
                    .service(evenings::create_event)
                    .service(evenings::list_events)
                    .service(evenings::get_event)
                    .service(evenings::event_stream)
                    .service(evenings::enter)
                    .service(evenings::withdraw)
                    .service(evenings::remove_entry)
                    .service(evenings::add_bots)
                    .service(evenings::start)
                    .service(evenings::cancel)
                    .service(evenings::send_seed)
                    .service(evenings::standings)
                    .service(evenings::board),
            )
    };
}

/// Registers every route (under `/v1` for the API) and collects their
/// OpenAPI paths: what the document is built from.
pub fn routes(config: &mut ServiceConfig) {
    register_routes!(config, scope::scope);
}

/// Registers the same routes as [`routes`] on a plain actix-web config,
/// without building any OpenAPI: what each HTTP worker runs at start (the
/// document is built once per process, see `startup`). The page at `/play`
/// is served beside them; it is no part of the API's document.
pub fn serve_routes(config: &mut actix_web::web::ServiceConfig) {
    register_routes!(config, actix_web::web::scope);
    config.configure(super::play::routes);
}
