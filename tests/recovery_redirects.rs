//! The executor follows no redirect: a 302 or 307 from Keystone (at discovery or sign-in),
//! from a version document or from any Nova call is an error naming the call, the status
//! and the refused `Location`, and the host it points at is never contacted.

use evacdoc::recovery::openstack::OpenStack;
use evacdoc::recovery::{Cloud, CloudError};

use crate::recovery_client::{Fixture, VM3, scenario, vm3_answers_once};
use crate::util::Tripwire;

/// A fault answering `status` with a `Location` at `tripwire`, for `method` on the paths
/// `regex` matches.
fn redirect(method: &str, regex: &str, status: u16, tripwire: &Tripwire) -> String {
    format!(
        "[[faults]]\nmethod = \"{method}\"\npath_regex = '{regex}'\nstatus = {status}\nlocation = \"{}/stolen\"\n",
        tripwire.url
    )
}

/// The redirect `error` names, as (method, path, status, location).
fn refused(error: &CloudError) -> (&str, &str, u16, &str) {
    let CloudError::Redirect {
        method,
        path,
        status,
        location,
    } = error
    else {
        panic!("not a refused redirect: {error:?}")
    };
    (method, path, *status, location)
}

#[tokio::test]
async fn a_redirect_at_sign_in_or_discovery_fails_the_connection() {
    // (what is redirected, method, path regex, status, the path the error names)
    let cases = [
        (
            "keystone's versions",
            "GET",
            "^/identity/?$",
            302,
            "/identity/",
        ),
        (
            "the credentials",
            "POST",
            "^/identity/v3/auth/tokens$",
            307,
            "/identity/v3/auth/tokens",
        ),
        (
            "nova's version",
            "GET",
            "^/compute/v2\\.1/?$",
            302,
            "/compute/v2.1/",
        ),
        // Cinder's catalog endpoint has the project: its version document is one up.
        (
            "cinder's version",
            "GET",
            "^/volume/v3/?$",
            308,
            "/volume/v3",
        ),
    ];
    for (what, method, regex, status, path) in cases {
        let tripwire = Tripwire::start().await;
        let fixture = Fixture::start(&scenario(&redirect(method, regex, status, &tripwire))).await;
        let error = OpenStack::connect(fixture.options("evacdoc-sim"))
            .await
            .unwrap_err();
        let location = format!("{}/stolen", tripwire.url);
        assert_eq!(
            refused(&error),
            (method, path, status, location.as_str()),
            "{what}: {error}"
        );
        assert!(error.to_string().contains("not followed"), "{error}");
        assert_eq!(
            tripwire.connections(),
            0,
            "{what}: the redirect was followed"
        );
        fixture.sim.shutdown().await;
    }
}

#[tokio::test]
async fn a_redirect_from_a_nova_call_is_refused_with_its_token_and_body() {
    let tripwire = Tripwire::start().await;
    let server = format!("^/compute/v2\\.1/servers/{VM3}");
    let faults = redirect("GET", &format!("{server}$"), 302, &tripwire)
        + &redirect("POST", &format!("{server}/action$"), 307, &tripwire);
    let fixture = Fixture::start(&scenario(&faults)).await;
    let cloud = fixture.connect().await;
    let location = format!("{}/stolen", tripwire.url);

    let error = cloud.server(VM3).await.unwrap_err();
    let path = format!("/servers/{VM3}");
    assert_eq!(
        refused(&error),
        ("GET", path.as_str(), 302, location.as_str())
    );
    assert_eq!(error.status(), Some(302));
    // A 307 would send the lock request's body again, with the token.
    let error = cloud.lock(VM3, "evacdoc test").await.unwrap_err();
    let path = format!("/servers/{VM3}/action lock");
    assert_eq!(
        refused(&error),
        ("POST", path.as_str(), 307, location.as_str())
    );
    assert_eq!(tripwire.connections(), 0, "the redirect was followed");
    fixture.sim.shutdown().await;
}

/// A refused token (Keystone revoked it, or it expired) is answered by one new sign-in
/// and the call is sent again.
#[tokio::test]
async fn a_401_signs_in_again_once_and_the_call_goes_through() {
    let fixture = Fixture::start(&scenario(&vm3_answers_once(401))).await;
    let cloud = fixture.connect().await;
    let server = cloud.server(VM3).await.unwrap();
    assert_eq!(server.host.as_deref(), Some("compute-2"));
    fixture.sim.shutdown().await;
    let access = std::fs::read_to_string(
        fixture
            .dir
            .path()
            .join("logs/controller-0/var/log/apache2/keystone_access.log"),
    )
    .unwrap();
    let sign_ins = access
        .lines()
        .filter(|l| l.contains("POST /identity/v3/auth/tokens"))
        .count();
    assert_eq!(sign_ins, 2, "{access}");
}
