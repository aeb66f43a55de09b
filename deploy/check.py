#!/usr/bin/env python3
"""Checks the YAML deployment files under deploy/ (compose and Kubernetes).

    python3 deploy/check.py          # needs PyYAML: pip install pyyaml

Every .yaml/.yml file under deploy/ must parse; then the facts the service
relies on are checked (probes, resources, secrets, grace periods, the
compose topology). Prints each problem and exits 1 if there is any.
The text files (Dockerfile, nginx.conf, the systemd unit) are checked by
tests/deploy_files.rs.
"""

import pathlib
import re
import sys

try:
    import yaml
except ImportError:
    sys.exit("deploy/check.py needs PyYAML: pip install pyyaml")

DEPLOY = pathlib.Path(__file__).resolve().parent
SHUTDOWN_TIMEOUT = 30  # the service's default, seconds
problems = []


def check(condition, message):
    if not condition:
        problems.append(message)
    return condition


def seconds(value):
    """Compose durations such as 40s, 1m30s, or a bare number of seconds."""
    if isinstance(value, (int, float)):
        return value
    total, units = 0, {"h": 3600, "m": 60, "s": 1, "ms": 0.001}
    parts = re.findall(r"(\d+(?:\.\d+)?)(ms|h|m|s)", str(value))
    check(parts, f"cannot read the duration {value!r}")
    for number, unit in parts:
        total += float(number) * units[unit]
    return total


def load_all():
    documents = {}
    for path in sorted(DEPLOY.rglob("*.y*ml")):
        name = path.relative_to(DEPLOY).as_posix()
        try:
            documents[name] = [d for d in yaml.safe_load_all(path.read_text()) if d is not None]
        except yaml.YAMLError as error:
            problems.append(f"{name}: not valid YAML: {error}")
            continue
        check(documents[name], f"{name}: empty")
    return documents


def check_compose(compose):
    services = compose.get("services", {})
    postgres = services.get("postgres", {})
    check(str(postgres.get("image", "")).startswith("postgres:15"), "compose: postgres must be Postgres 15")
    check("healthcheck" in postgres, "compose: postgres needs a healthcheck")

    instances = {
        name: s for name, s in services.items()
        if s.get("build", {}).get("dockerfile") == "deploy/Dockerfile"
    }
    check(len(instances) == 2, f"compose: want 2 service instances built from deploy/Dockerfile, got {sorted(instances)}")
    envs = [s.get("environment", {}) for s in instances.values()]
    for key in ("DATABASE_URL", "JWT_SECRET"):
        values = {str(env.get(key)) for env in envs}
        check(len(values) == 1 and None not in values, f"compose: every instance needs the same {key}")
    for name, s in instances.items():
        env = s.get("environment", {})
        check(str(env.get("DATABASE_URL", "")).startswith("postgres://"), f"compose: {name} must use Postgres")
        check(env.get("HOST") == "0.0.0.0", f"compose: {name} must listen on 0.0.0.0")
        check(s.get("depends_on", {}).get("postgres", {}).get("condition") == "service_healthy",
              f"compose: {name} must wait for a healthy postgres")
        timeout = int(env.get("SHUTDOWN_TIMEOUT", SHUTDOWN_TIMEOUT))
        check(seconds(s.get("stop_grace_period", "10s")) > timeout,
              f"compose: {name} stop_grace_period must exceed SHUTDOWN_TIMEOUT ({timeout} s)")

    nginx = services.get("nginx", {})
    check(str(nginx.get("image", "")).startswith("nginx"), "compose: nginx service missing")
    check(any(str(p).endswith(":8080") for p in nginx.get("ports", [])), "compose: nginx must publish 8080")
    check(any("nginx.conf" in str(v) for v in nginx.get("volumes", [])), "compose: nginx must mount deploy/nginx.conf")
    for name in instances:
        check(nginx.get("depends_on", {}).get(name, {}).get("condition") == "service_healthy",
              f"compose: nginx must wait for a healthy {name}")
    conf = (DEPLOY / "nginx.conf").read_text()
    for name in instances:
        check(re.search(rf"server\s+{re.escape(name)}:8080", conf), f"nginx.conf: upstream lacks {name}:8080")


def check_k8s(documents):
    kinds = {}
    for name, docs in documents.items():
        if not name.startswith("k8s/"):
            continue
        check(len(docs) == 1, f"{name}: want one object per file")
        for doc in docs:
            check({"apiVersion", "kind", "metadata"} <= doc.keys(), f"{name}: needs apiVersion, kind and metadata")
            check(doc.get("kind") not in kinds, f"{name}: a second {doc.get('kind')}")
            kinds[doc.get("kind")] = doc
    for kind in ("Deployment", "Service", "Secret", "HorizontalPodAutoscaler"):
        check(kind in kinds, f"k8s: no {kind}")

    deployment = kinds.get("Deployment", {})
    spec = deployment.get("spec", {})
    pod = spec.get("template", {}).get("spec", {})
    labels = spec.get("template", {}).get("metadata", {}).get("labels", {})
    check(spec.get("replicas") == 2, "Deployment: want 2 replicas")
    check(spec.get("selector", {}).get("matchLabels", {}).items() <= labels.items(),
          "Deployment: selector does not match the pod labels")
    check(pod.get("securityContext", {}).get("runAsNonRoot") is True, "Deployment: pods must run as non-root")
    containers = pod.get("containers", [])
    check(len(containers) == 1, "Deployment: want one container")
    container = containers[0] if containers else {}
    env = {e["name"]: e for e in container.get("env", [])}
    timeout = int(env.get("SHUTDOWN_TIMEOUT", {}).get("value", SHUTDOWN_TIMEOUT))
    check(pod.get("terminationGracePeriodSeconds", 30) > timeout,
          f"Deployment: terminationGracePeriodSeconds must exceed SHUTDOWN_TIMEOUT ({timeout} s)")
    check(env.get("HOST", {}).get("value") == "0.0.0.0", "Deployment: HOST must be 0.0.0.0")
    secret = kinds.get("Secret", {})
    secret_data = {**secret.get("stringData", {}), **secret.get("data", {})}
    for key in ("JWT_SECRET", "DATABASE_URL"):
        ref = env.get(key, {}).get("valueFrom", {}).get("secretKeyRef", {})
        check(ref.get("name") == secret.get("metadata", {}).get("name") and ref.get("key") in secret_data,
              f"Deployment: {key} must come from the Secret")
    ports = {p.get("name"): p.get("containerPort") for p in container.get("ports", [])}
    for probe, path in (("readinessProbe", "/readyz"), ("livenessProbe", "/healthz")):
        get = container.get(probe, {}).get("httpGet", {})
        check(get.get("path") == path, f"Deployment: {probe} must GET {path}")
        check(get.get("port") in ports or get.get("port") in ports.values(), f"Deployment: {probe} port unknown")
    resources = container.get("resources", {})
    for part in ("requests", "limits"):
        check({"cpu", "memory"} <= resources.get(part, {}).keys(), f"Deployment: resources.{part} needs cpu and memory")
    check(container.get("securityContext", {}).get("allowPrivilegeEscalation") is False,
          "Deployment: allowPrivilegeEscalation must be false")

    service = kinds.get("Service", {}).get("spec", {})
    check(service.get("selector", {}) and service.get("selector", {}).items() <= labels.items(),
          "Service: selector does not match the pods")
    for port in service.get("ports", []):
        target = port.get("targetPort")
        check(target in ports or target in ports.values(), f"Service: targetPort {target} is no container port")

    hpa = kinds.get("HorizontalPodAutoscaler", {})
    check(hpa.get("apiVersion") == "autoscaling/v2", "HPA: want autoscaling/v2")
    target = hpa.get("spec", {}).get("scaleTargetRef", {})
    check(target.get("kind") == "Deployment" and target.get("name") == deployment.get("metadata", {}).get("name"),
          "HPA: must scale the Deployment")
    check(any(m.get("resource", {}).get("name") == "cpu" for m in hpa.get("spec", {}).get("metrics", [])),
          "HPA: want a CPU metric")
    check(hpa.get("spec", {}).get("minReplicas", 1) >= 2, "HPA: keep at least 2 replicas")


def main():
    documents = load_all()
    if check("compose.yaml" in documents, "deploy/compose.yaml missing") and documents["compose.yaml"]:
        check_compose(documents["compose.yaml"][0])
    check_k8s(documents)
    for problem in problems:
        print(f"FAIL {problem}")
    if problems:
        return 1
    print(f"ok: {len(documents)} YAML files under deploy/ ({', '.join(documents)})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
