package narwhal.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import narwhal.config.EngineRole;
import narwhal.config.EngineSpec;
import narwhal.config.ApiKeyHash;
import narwhal.config.FleetConfig;
import narwhal.config.TenantConfig;
import narwhal.config.TenantsConfig;
import narwhal.config.FleetConfigException;
import narwhal.spi.EngineDialects;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The server reads fleet files against the dialects present and their configuration checks. */
class FleetFilesTest {

  @TempDir
  Path dir;

  private Path fleet(String engineSection, String... engines) throws IOException {
    Path file = dir.resolve("fleet.json");
    Files.writeString(file, "{\"schema\":\"narwhal.fleet\",\"schema_version\":1,\"model\":\"m\","
        + "\"slo\":{\"ttft_s\":1,\"tpot_s\":0.1},\"engine\":" + engineSection + ",\"engines\":["
        + String.join(",", engines) + "]}");
    return file;
  }

  @Test
  void read_sglangFleetWithPerEngineOverride_usesTheDialectsPresent() throws Exception {
    Path file = fleet("{\"dialect\":\"sglang\"}",
        "{\"iid\":\"p0\",\"url\":\"http://10.0.0.1:30000\",\"role\":\"prefill\","
            + "\"dialect_options\":{\"bootstrap_port\":9000}}",
        "{\"iid\":\"d0\",\"url\":\"http://10.0.0.2:30000\",\"role\":\"decode\"}",
        "{\"iid\":\"v0\",\"url\":\"http://10.0.0.3:8000\",\"role\":\"both\",\"dialect\":\"vllm\"}");

    FleetConfig config = FleetFiles.read(file);

    assertThat(config.engines()).extracting(EngineSpec::dialect).containsExactly("sglang", "sglang", "vllm");
    assertThat(config.engines().get(0).dialectOptions()).containsEntry("bootstrap_port", 9000);
  }

  @Test
  void read_unknownDialect_listsThePresentOnes() throws Exception {
    Path file = fleet("{\"dialect\":\"trtllm\"}", "{\"iid\":\"b0\",\"url\":\"http://h:1\",\"role\":\"both\"}");

    assertThatThrownBy(() -> FleetFiles.read(file))
        .isInstanceOfSatisfying(FleetConfigException.class, e -> assertThat(e.errors())
            .containsExactly("$.engine.dialect: must be one of sglang, vllm, got \"trtllm\""));
  }

  @Test
  void read_badBootstrapPort_isAFleetFileError() throws Exception {
    Path file = fleet("{\"dialect\":\"sglang\"}",
        "{\"iid\":\"p0\",\"url\":\"http://h:1\",\"role\":\"prefill\",\"dialect_options\":{\"bootstrap_port\":0}}",
        "{\"iid\":\"d0\",\"url\":\"http://h:2\",\"role\":\"decode\",\"dialect_options\":{\"port\":1}}");

    assertThatThrownBy(() -> FleetFiles.read(file))
        .isInstanceOfSatisfying(FleetConfigException.class, e -> assertThat(e.errors()).satisfiesExactly(
            line -> assertThat(line).startsWith("$.engines[0] (p0): dialect_options.bootstrap_port must be")
                .endsWith("got 0"),
            line -> assertThat(line).isEqualTo("$.engines[1] (d0): dialect_options.port is not an sglang "
                + "option: remove it (sglang reads only bootstrap_port)")));
  }

  @Test
  void routerServer_refusesToStartWithUnusableDialectOptions() {
    EngineSpec prefill = EngineSpec.of("p0", URI.create("http://127.0.0.1:1"), EngineRole.PREFILL)
        .withDialect("sglang").withDialectOptions(Map.of("bootstrap_port", "x"));
    EngineSpec decode = EngineSpec.of("d0", URI.create("http://127.0.0.1:2"), EngineRole.DECODE)
        .withDialect("sglang");
    FleetConfig config = FleetConfig.of("m", List.of(prefill, decode));

    assertThat(FleetFiles.problems(config, EngineDialects.discover())).hasSize(1);
    assertThatThrownBy(() -> RouterServer.start(config, "127.0.0.1", 0, null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("$.engines[0] (p0): dialect_options.bootstrap_port must be");
  }

  @Test
  void aTenantsSection_isNoProblem_nowThatAuthenticationIsEnforced() {
    EngineSpec prefill = EngineSpec.of("p0", URI.create("http://127.0.0.1:1"), EngineRole.PREFILL);
    EngineSpec decode = EngineSpec.of("d0", URI.create("http://127.0.0.1:2"), EngineRole.DECODE);
    String key = "nwk_abcd1234_" + "s".repeat(43);
    TenantsConfig tenants = new TenantsConfig(List.of(new TenantConfig("t", List.of(ApiKeyHash.of(key,
        new byte[16])), List.of(), 0, 0, 1, 1)), List.of());
    FleetConfig config = FleetConfig.of("m", List.of(prefill, decode)).withTenants(tenants);

    assertThat(FleetFiles.problems(config, EngineDialects.discover())).isEmpty();
  }
}
