package narwhal.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The cluster section: absent means a router alone; its keys, defaults, and problems that never echo the password. */
class ClusterConfigTest {

  private static final String FLEET = """
      {"schema": "narwhal.fleet", "schema_version": 1, "model": "m",
       "engines": [{"iid": "p0", "url": "http://127.0.0.1:8100", "role": "prefill"},
                   {"iid": "d0", "url": "http://127.0.0.1:8101", "role": "decode"}],
       "slo": {"ttft_s": 2.0, "tpot_s": 0.1}%s}
      """;

  private static FleetConfig parse(String cluster, Map<String, String> env) throws FleetConfigException {
    return FleetFileParser.parse(FLEET.formatted(cluster.isEmpty() ? "" : ", \"cluster\": " + cluster), env::get);
  }

  private static List<String> problems(String cluster, Map<String, String> env) {
    try {
      parse(cluster, env);
      throw new AssertionError("expected problems with " + cluster);
    } catch (FleetConfigException e) {
      return e.errors();
    }
  }

  @Test
  void absent_theRouterRunsAlone() throws Exception {
    assertThat(parse("", Map.of()).cluster()).isNull();
    assertThat(parse("null", Map.of()).cluster()).isNull();
  }

  @Test
  void endpointsOnly_everyOtherKeyAtItsDefault() throws Exception {
    ClusterConfig c = parse("{\"endpoints\": [\"http://127.0.0.1:2379\"]}", Map.of()).cluster();
    assertThat(c.endpoints()).containsExactly(URI.create("http://127.0.0.1:2379"));
    assertThat(c.name()).isNull();
    assertThat(c.keyPrefix()).isEqualTo("/narwhal");
    assertThat(c.leaseTtlS()).isEqualTo(5);
    assertThat(c.requestTimeoutS()).isEqualTo(1.0);
    assertThat(c.loadIntervalS()).isEqualTo(0.1);
    assertThat(c.user()).isNull();
    assertThat(c.password().isSet()).isFalse();
    assertThat(c.tls()).isFalse();
  }

  @Test
  void everyKey_isRead_andThePasswordComesFromItsVariable_neverShown() throws Exception {
    ClusterConfig c = parse("""
        {"endpoints": ["https://etcd-a:2379", "https://etcd-b:2379"], "name": "router-a", "key_prefix": "/fleets/a",
         "lease_ttl_s": 3, "request_timeout_s": 0.5, "load_interval_s": 0.2, "user": "narwhal",
         "password_env": "ETCD_PW"}""", Map.of("ETCD_PW", "hunter2-secret")).cluster();
    assertThat(c.name()).isEqualTo("router-a");
    assertThat(c.keyPrefix()).isEqualTo("/fleets/a");
    assertThat(c.leaseTtlS()).isEqualTo(3);
    assertThat(c.user()).isEqualTo("narwhal");
    assertThat(c.password().reveal()).isEqualTo("hunter2-secret");
    assertThat(c.tls()).isTrue();
    assertThat(c.toString()).doesNotContain("hunter2-secret").contains("value hidden");
  }

  @Test
  void problems_nameTheKeyAndWhatToFix_neverAValue() {
    assertThat(problems("{}", Map.of())).anySatisfy(p -> assertThat(p).startsWith("$.cluster.endpoints: required"));
    assertThat(problems("{\"endpoints\": [\"etcd:2379\", 7]}", Map.of()))
        .anySatisfy(p -> assertThat(p).startsWith("$.cluster.endpoints[0]: must be an http:// or https:// URL"))
        .anySatisfy(p -> assertThat(p).startsWith("$.cluster.endpoints[1]: must be"));
    assertThat(problems("{\"endpoints\": [\"http://u:pw@etcd:2379\"]}", Map.of()))
        .anySatisfy(p -> assertThat(p).startsWith("$.cluster.endpoints[0]:"));
    assertThat(problems("{\"endpoints\": [\"http://e:2379\"], \"lease_ttl_s\": 1}", Map.of()))
        .anySatisfy(p -> assertThat(p).startsWith("$.cluster.lease_ttl_s:"));
    assertThat(problems("{\"endpoints\": [\"http://e:2379\"], \"name\": \"a/b\"}", Map.of()))
        .anySatisfy(p -> assertThat(p).startsWith("$.cluster.name: must be"));
    assertThat(problems("{\"endpoints\": [\"http://e:2379\"], \"key_prefix\": \"narwhal\"}", Map.of()))
        .anySatisfy(p -> assertThat(p).startsWith("$.cluster.key_prefix: must be a path"));
    assertThat(problems("{\"endpoints\": [\"http://e:2379\"], \"user\": \"u\"}", Map.of()))
        .anySatisfy(p -> assertThat(p).startsWith("$.cluster.password_env: required with user"));
    assertThat(problems("{\"endpoints\": [\"http://e:2379\"], \"user\": \"u\", \"password_env\": \"PW\"}", Map.of()))
        .anySatisfy(p -> assertThat(p).isEqualTo(
            "$.cluster.password_env: environment variable PW is not set: export the etcd password of user u in it"));
    assertThat(problems("{\"endpoints\": [\"http://e:2379\"], \"leas_ttl_s\": 3}", Map.of()))
        .anySatisfy(p -> assertThat(p).startsWith("$.cluster.leas_ttl_s: unknown key (did you mean lease_ttl_s?)"));
    assertThat(problems("{\"endpoints\": [\"http://e:2379\"], \"tls\": {\"client_cert\": \"/nonexistent.pem\"}}",
        Map.of())).anySatisfy(p -> assertThat(p).startsWith("$.cluster.tls.client_key:"));
  }

  @Test
  void replicaNames() {
    assertThat(ClusterConfig.validName("127.0.0.1:8000")).isTrue();
    assertThat(ClusterConfig.validName("router-a")).isTrue();
    assertThat(ClusterConfig.validName("")).isFalse();
    assertThat(ClusterConfig.validName("-a")).isFalse();
    assertThat(ClusterConfig.validName("a b")).isFalse();
    assertThatThrownBy(() -> ClusterConfig.of(List.of())).isInstanceOf(IllegalArgumentException.class);
  }
}
