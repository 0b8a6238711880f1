use super::*;

fn log(rel: &str) -> String {
    match role_of(rel) {
        Role::Log(s) => s.0,
        other => panic!("{rel}: {other:?}"),
    }
}

#[test]
fn rotations() {
    assert_eq!(rotation("nova-compute.log"), ("nova-compute.log", 0));
    assert_eq!(rotation("nova-compute.log.1"), ("nova-compute.log", 1));
    assert_eq!(rotation("nova-compute.log.12.gz"), ("nova-compute.log", 12));
    assert_eq!(
        rotation("nova-api-os-compute_access.log.2.gz").0,
        "nova-api-os-compute_access.log"
    );
    let (stem, newer) = rotation("masakari-engine.log-20240521.gz");
    let (_, older) = rotation("masakari-engine.log-20240520.gz");
    assert_eq!(stem, "masakari-engine.log");
    assert!(older > newer);
}

/// A `masakari-manage` log full of the engine's taskflow loggers stays masakari-manage:
/// its lines are never a recovery's.
#[test]
fn a_manage_log_is_not_the_engine() {
    assert_eq!(
        log("var/log/kolla/masakari/masakari-manage.log"),
        "masakari-manage"
    );
    let line =
        |t: &str, logger: &str, m: &str| format!("2024-09-18 07:50:{t} 12 INFO {logger} [-] {m}\n");
    let text = line(
        "01.100",
        "masakari.engine.drivers.taskflow.base",
        "Upgrading taskflow persistence",
    ) + &line(
        "01.200",
        "masakari.engine.drivers.taskflow.base",
        "Taskflow persistence upgraded",
    ) + &line(
        "01.300",
        "alembic.runtime.migration",
        "Context impl MySQLImpl.",
    );
    let analysis = crate::detect::context::testing::analysis_of(&[(
        "ctl01/var/log/kolla/masakari/masakari-manage.log",
        &text,
    )]);
    let services: Vec<&str> = analysis.files.iter().map(|f| f.service.name()).collect();
    assert_eq!(services, ["masakari-manage"]);
}

#[test]
fn logs_by_deployment() {
    assert_eq!(
        log("var/log/masakari/masakari-engine.log"),
        "masakari-engine"
    );
    assert_eq!(
        log("var/log/masakari/masakari-engine.log.2.gz"),
        "masakari-engine"
    );
    assert_eq!(
        log("var/log/kolla/masakari/masakari-engine.log"),
        "masakari-engine"
    );
    assert_eq!(
        log("var/log/apache2/nova-api-os-compute_access.log"),
        "nova-api-access"
    );
    assert_eq!(
        log("var/log/kolla/nova/nova-api-access.log"),
        "nova-api-access"
    );
    assert_eq!(log("var/log/nova/nova-api-wsgi.log"), "nova-api");
    assert_eq!(
        log("var/log/containers/nova/nova-compute.log"),
        "nova-compute"
    );
    assert_eq!(
        log(
            "sos_commands/kubernetes/cluster-info/openstack/podlogs/masakari-0/k8s_kubectl_--namespace_openstack_logs_masakari-0_-c_masakari-engine"
        ),
        "masakari-engine"
    );
    assert_eq!(
        log("sos_commands/sunbeam_hypervisor/journalctl_--no-pager_--unit_nova-compute"),
        "nova-compute"
    );
    assert_eq!(
        log("var/snap/openstack-hypervisor/common/log/nova/nova-compute.log"),
        "nova-compute"
    );
    assert_eq!(
        log("var/log/neutron/neutron-server.log"),
        "neutron/neutron-server"
    );
}

#[test]
fn container_logs() {
    let uid = "0c1d2e3f-4a5b-4c6d-8e7f-0a1b2c3d4e5f";
    for (rel, service) in [
        (
            format!("var/log/pods/openstack_masakari-engine-0_{uid}/masakari-engine/0.log"),
            "masakari-engine",
        ),
        (
            format!(
                "var/log/pods/openstack_nova-compute-default-abcde_{uid}/nova-compute/0.log.20240501-120000.gz"
            ),
            "nova-compute",
        ),
        // openstack-helm: the container is `nova-osapi` in the `nova-api-osapi` pod.
        (
            format!(
                "var/log/pods/openstack_nova-api-osapi-7d9f8c6b5-x2x9k_{uid}/nova-osapi/3.log"
            ),
            "nova-api",
        ),
        (
            format!("var/log/pods/openstack_cinder-volume-0_{uid}/cinder-volume/0.log"),
            "cinder-volume",
        ),
        // Sunbeam: pod `nova-0`, one container per service.
        (
            format!("var/log/pods/openstack_nova-0_{uid}/nova-conductor/1.log"),
            "nova-conductor",
        ),
        // An init container named for nothing known: the pod names the service.
        (
            format!("var/log/pods/openstack_nova-compute-default-abcde_{uid}/init/0.log"),
            "nova-compute",
        ),
        (
            format!("var/log/pods/openstack_nova-0_{uid}/charm/0.log"),
            "charm",
        ),
        (
            "var/log/containers/nova-compute-default-abcde_openstack_nova-compute-0f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c4b5a69788796a5b4c3d2e1f0.log".to_string(),
            "nova-compute",
        ),
        (
            "var/log/containers/masakari-engine-0_openstack_masakari-engine-a1b2c3d4e5f6a1b2c3d4e5f6a1b2c3d4e5f6a1b2c3d4e5f6a1b2c3d4e5f6a1b2.log".to_string(),
            "masakari-engine",
        ),
        (
            "var/lib/docker/containers/a1b2c3d4e5f6a7b8/a1b2c3d4e5f6a7b8-json.log.1".to_string(),
            "docker-a1b2c3d4e5f6",
        ),
    ] {
        assert_eq!(log(&rel), service, "{rel}");
    }
    // TripleO keeps service folders under var/log/containers: not container logs.
    assert_eq!(
        log("var/log/containers/nova/nova-compute.log"),
        "nova-compute"
    );
    assert!(!matches!(
        role_of("var/lib/docker/containers/a1b2c3d4e5f6a7b8/config.v2.json"),
        Role::Log(_)
    ));
}

#[test]
fn services_from_loggers() {
    let engine = "2020-12-08 19:51:12.309 235 INFO masakari.compute.nova [req-de081ecf-4201-4542-b092-e21b2f5ce942 masakari - - - -] Call evacuate command\n";
    assert_eq!(
        service_from_loggers(engine),
        Some(Service::new("masakari-engine"))
    );
    assert_eq!(service_from_loggers("plain text\n"), None);
}

#[test]
fn host_names_around_service_names_in_gathered_files() {
    for (rel, service) in [
        ("logs/node02_nova-compute.log", "nova-compute"),
        ("ctl1-masakari-engine.log", "masakari-engine"),
        (
            "logs/3_lxd_6_nova-api-os-compute_access.log.1",
            "nova-api-access",
        ),
        ("nova-compute-node02.log", "nova-compute"),
        ("case/cmp3.nova-compute.log.2.gz", "nova-compute"),
        ("masakari/masakari_wsgi_access.log", "masakari-api-access"),
    ] {
        assert_eq!(role_of(rel), Role::Log(Service::new(service)), "{rel}");
    }
    // One word alone is not enough to name a service.
    assert_eq!(
        role_of("logs/backup_volume.log"),
        Role::Log(Service::new("backup_volume"))
    );
}

#[test]
fn other_roles() {
    assert_eq!(
        role_of("etc/masakari/masakari.conf"),
        Role::Config(Service::new("masakari"))
    );
    assert_eq!(
        role_of("etc/kolla/nova-api/nova.conf"),
        Role::Config(Service::new("nova"))
    );
    assert_eq!(
        role_of("var/lib/config-data/puppet-generated/nova/etc/nova/nova.conf"),
        Role::Config(Service::new("nova"))
    );
    assert_eq!(log("sos_commands/logs/journalctl_--no-pager"), "syslog");
    assert_eq!(
        log("sos_commands/logs/journalctl_--no-pager_--boot"),
        "syslog"
    );
    assert!(matches!(
        role_of("sos_commands/logs/journalctl_--disk-usage"),
        Role::Ignored(_)
    ));
    assert_eq!(role_of("sos_commands/dpkg/dpkg_-l"), Role::Packages);
    assert_eq!(role_of("sos_commands/date/date"), Role::Clock);
    assert_eq!(role_of("etc/timezone"), Role::Clock);
    assert_eq!(role_of("hostname"), Role::Hostname);
    assert_eq!(role_of("notification-show.txt"), Role::MaybeCapture);
    assert!(matches!(role_of("var/log/wtmp"), Role::Ignored(_)));
    assert!(matches!(
        role_of("sos_commands/block/lsblk"),
        Role::Ignored(_)
    ));
    assert_eq!(
        role_of("sos_commands/pacemaker/pcs_stonith_history_show"),
        Role::MaybeCapture
    );
    assert_eq!(
        role_of("sos_commands/rabbitmq/rabbitmqctl_report"),
        Role::MaybeCapture
    );
    assert!(matches!(
        role_of("sos_commands/pacemaker/crm_report/ctl-1/cib.xml"),
        Role::Ignored(_)
    ));
}

#[test]
fn devstack_screen_logs_and_units_name_their_service() {
    assert_eq!(log("controller/logs/screen-n-cpu.txt"), "nova-compute");
    assert_eq!(
        role_of("compute1/logs/etc/nova/nova-cpu.conf"),
        Role::Config(Service::new("nova-compute"))
    );
    assert_eq!(log("compute1/logs/screen-n-cpu.txt.gz"), "nova-compute");
    assert_eq!(log("controller/logs/screen-n-api.txt"), "nova-api");
    assert_eq!(
        log("controller/logs/screen-n-cond-cell1.txt"),
        "nova-conductor"
    );
    assert_eq!(
        log("controller/logs/screen-n-super-cond.txt"),
        "nova-conductor"
    );
    assert_eq!(log("controller/logs/screen-c-vol.txt"), "cinder-volume");
    assert_eq!(
        log("controller/logs/screen-masakari-engine.txt"),
        "masakari-engine"
    );
    assert_eq!(log("controller/logs/screen-keystone.txt"), "keystone");
    // A unit evacdoc does not know: read, named after itself.
    assert_eq!(log("controller/logs/screen-etcd.txt"), "etcd");
    assert_eq!(
        source_service("devstack@n-cpu.service"),
        Some("nova-compute")
    );
    assert_eq!(
        source_service("devstack@masakari-engine.service"),
        Some("masakari-engine")
    );
    assert_eq!(source_service("devstack@etcd.service"), None);
}
