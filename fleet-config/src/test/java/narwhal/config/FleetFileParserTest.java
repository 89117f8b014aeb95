package narwhal.config;

import static narwhal.config.FleetJson.engine;
import static narwhal.config.FleetJson.minimal;
import static narwhal.config.FleetJson.parse;
import static narwhal.config.FleetJson.section;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FleetFileParserTest {

  @Test
  void minimalFleet_absentSections_takeDocumentedDefaults() throws Exception {
    FleetConfig config = parse(minimal());

    assertThat(config.model()).isEqualTo("m");
    assertThat(config.slo()).isEqualTo(new SloConfig(2.0, 0.1));
    assertThat(config.serving()).isEqualTo(ServingConfig.defaults());
    assertThat(config.engine()).isEqualTo(EngineConfig.defaults());
    assertThat(config.recovery()).isEqualTo(RecoveryConfig.defaults());
    assertThat(config.controller()).isEqualTo(ControllerConfig.defaults());
    assertThat(config.profiles()).isEqualTo(ProfilesConfig.defaults());
    assertThat(config.continuation()).isEqualTo(ContinuationConfig.defaults());
    assertThat(config.hardware().values()).isEmpty();
    assertThat(config.engineContract()).isNull();
    assertThat(config.isDevelopmentFleet()).isTrue();
    assertThat(config.handoffBoundS()).isNull();

    EngineSpec decode = config.engines().get(1);
    assertThat(decode.role()).isEqualTo(EngineRole.DECODE);
    assertThat(decode.pin()).isFalse();
    assertThat(decode.attestationUrl()).isNull();
    assertThat(decode.sharedDevice()).isNull();
    assertThat(decode.dialect()).isEqualTo("vllm");
    assertThat(decode.connector()).isEqualTo("nixl");
  }

  @Test
  void defaults_matchTheConfigurationReference() {
    ServingConfig s = ServingConfig.defaults();
    assertThat(s.admission()).isEqualTo(AdmissionMode.PREDICTIVE);
    assertThat(s.maxConnections()).isEqualTo(512);
    assertThat(s.maxAttempts()).isEqualTo(1);
    assertThat(s.queueCapacity()).isZero();
    assertThat(s.retryBaseS()).isEqualTo(0.1);
    assertThat(s.retryCapS()).isEqualTo(1.0);
    assertThat(s.retryBudget()).isEqualTo(10.0);
    assertThat(s.retryReplenish()).isEqualTo(0.1);
    assertThat(s.maxRequestBytes()).isEqualTo(4L * 1024 * 1024);
    assertThat(s.maxResponseBytes()).isEqualTo(16L * 1024 * 1024);
    assertThat(s.requestTimeoutS()).isEqualTo(600.0);
    assertThat(s.prefillTimeoutS()).isEqualTo(120.0);
    assertThat(s.gracefulTimeoutS()).isEqualTo(30.0);

    EngineConfig e = EngineConfig.defaults();
    assertThat(e.firstTokenTimeoutS()).isEqualTo(2.5);
    assertThat(e.decodeReadTimeoutS()).isEqualTo(60.0);
    assertThat(e.tokenize()).isTrue();
    assertThat(e.tokenizeTimeoutS()).isEqualTo(2.0);
    assertThat(e.charsPerToken()).isEqualTo(3.8);
    assertThat(e.connectTimeoutS()).isEqualTo(10.0);
    assertThat(e.poolTimeoutS()).isEqualTo(5.0);
    assertThat(e.healthTimeoutS()).isEqualTo(5.0);
    assertThat(e.connector()).isEqualTo("nixl");
    assertThat(e.dialect()).isEqualTo("vllm");

    RecoveryConfig r = RecoveryConfig.defaults();
    assertThat(r.ejectAfter()).isEqualTo(3);
    assertThat(r.readmitEvery()).isEqualTo(10);
    assertThat(r.livenessMisses()).isEqualTo(2);
    assertThat(r.failureQuarantineS()).isZero();
    assertThat(r.engineRestartPolicy()).isEqualTo(EngineRestartPolicy.INDIVIDUAL);
    assertThat(r.statePath()).isEqualTo("runs/state.json");
    assertThat(r.health()).isEqualTo(new HealthConfig(30, 2.0, 1.5, 3, 3, 5, 3, 1.5));

    ControllerConfig c = ControllerConfig.defaults();
    assertThat(c.monitorIntervalS()).isEqualTo(1.0);
    assertThat(c.monitorFailureLimit()).isEqualTo(5);
    assertThat(c.flipHistory()).isEqualTo(1000);
    assertThat(c.thresholds()).isEqualTo(new ThresholdsConfig(1.0, 0.5, 10, 3, 0, 0, 0));
    assertThat(c.reactive())
        .isEqualTo(
            new ReactiveConfig(120, 2, 0.8, 10, 0.5, 0.05, 5, 60, 120, 10, 0.25, 0.5, 2.0, 0.2, 8));
  }

  /** Every field gets a value distinct from its default and its neighbours, so a swap shows. */
  @Test
  void everyDocumentedKey_roundTrips() throws Exception {
    String json =
        """
        {
          "schema": "narwhal.fleet", "schema_version": 1, "model": "org/model-7b",
          "hardware": {"gpus": 8, "gpu": "H100", "nvlink": true, "memory_gib": 80.5,
                       "topology": {"nodes": [1, 2]}, "note": null},
          "engines": [
            {"iid": "p0", "url": "https://Engine-A.example:9443/", "role": "prefill", "pin": true,
             "attestation_url": "http://engine-a.example:9000/attest", "shared_device": "cuda:0",
             "dialect": "sglang",
             "dialect_options": {"bootstrap_port": 8998, "_note": "x", "extra": [1, "a", null]}},
            {"iid": "d0", "url": "http://10.0.0.2:8000", "role": "decode", "shared_device": 1},
            {"iid": "b0", "url": "http://[::1]:8002", "role": "both"}
          ],
          "engine_contract": {
            "vllm_version": "0.11.0", "image_digest": "sha256:abc", "nixl_version": "0.6.1",
            "connector_version": "2", "architecture": "LlamaForCausalLM", "dtype": "bfloat16",
            "kv_heads": 8, "head_size": 128, "layers": 32, "attention_backend": "FLASH_ATTN",
            "kv_cache_dtype": "fp8", "block_size": 16, "kv_layout": "HND",
            "tensor_parallel_size": 2, "use_mla": false, "connector": "NixlConnector",
            "kv_role": "kv_both", "transfer_mode": "push",
            "speculative_config": {"method": "eagle", "num_speculative_tokens": 3},
            "handshake_compat": "c0ffee", "kv_lease_duration_s": 30
          },
          "slo": {"ttft_s": 1.25, "tpot_s": 0.04},
          "controller": {
            "advisory": true, "monitor_interval_s": 0.5, "monitor_failure_limit": 7,
            "min_prefill": 2, "min_decode": 3, "flip_history": 50,
            "thresholds": {"expand": 1.2, "shrink": 0.4, "cooldown_s": 11, "sustained_intervals": 4,
                           "dwell_s": 6, "panic_ratio": 2.5, "flip_resident_guard": 9},
            "reactive": {"window_s": 121, "confirmations": 3, "utilization": 0.7,
                         "min_arrivals": 12, "demand_floor": 0.6, "movement_margin": 0.07,
                         "step_s": 4, "evidence_span_s": 61, "evidence_max_span_s": 122,
                         "evidence_min_arrivals": 13, "demand_rise_tolerance": 0.3,
                         "decode_correction_min": 0.45, "decode_correction_max": 2.2,
                         "decode_correction_alpha": 0.25, "decode_correction_min_samples": 9}
          },
          "serving": {
            "admission": "open", "admission_margin": 0.2, "max_connections": 768,
            "queue_capacity": 64, "queue_timeout_s": 3.5, "max_attempts": 2,
            "retry_base_s": 0.05, "retry_cap_s": 0.8, "retry_budget": 20, "retry_replenish": 0.25,
            "max_request_bytes": 1048576, "max_response_bytes": 2097152,
            "request_timeout_s": 300, "prefill_timeout_s": 45, "graceful_timeout_s": 12,
            "header_timeout_s": 7.5, "idle_timeout_s": 0, "max_client_connections": 1000
          },
          "engine": {
            "first_token_timeout_s": 4.5, "first_token_calibration_path": "runs/ftt.json",
            "decode_read_timeout_s": 10, "tokenize": false, "tokenize_timeout_s": 1.5,
            "chars_per_token": 4.1, "connect_timeout_s": 3, "pool_timeout_s": 2.5,
            "health_timeout_s": 1.75, "control_connections": 6,
            "engine_api_key_env": "ENGINE_KEY", "connector": "nixl", "dialect": "vllm"
          },
          "recovery": {
            "eject_after": 4, "readmit_every": 11, "liveness_every": 12, "liveness_misses": 5,
            "failure_quarantine_s": 7.5, "engine_restart_policy": "whole_wave",
            "state_path": "/var/lib/narwhal/state.json", "resume": true,
            "health": {"window_s": 31, "drift_band": 2.1, "relative_band": 1.6, "min_samples": 4,
                       "probation_windows": 6, "evict_windows": 7, "recovery_windows": 8,
                       "probation_penalty_s": 1.9}
          },
          "profiles": {"path": "p.json", "max_decode_fit_mape": 0.06, "max_decode_cv_mape": 0.14},
          "continuation": {"enabled": true, "max_attempts": 3,
                           "qualification_sha256": "%s"}
        }
        """
            .formatted("ab".repeat(32));

    FleetConfig config =
        FleetFileParser.parse(json, Map.of("ENGINE_KEY", "k-123")::get, Set.of("vllm", "sglang"));

    assertThat(config.model()).isEqualTo("org/model-7b");
    assertThat(config.hardware().values())
        .containsExactly(
            Map.entry("gpus", 8),
            Map.entry("gpu", "H100"),
            Map.entry("nvlink", true),
            Map.entry("memory_gib", 80.5),
            Map.entry("topology", Map.of("nodes", List.of(1, 2))),
            new java.util.AbstractMap.SimpleEntry<>("note", null));
    assertThat(config.engines())
        .containsExactly(
            new EngineSpec(
                "p0",
                URI.create("https://engine-a.example:9443"),
                EngineRole.PREFILL,
                URI.create("http://engine-a.example:9000/attest"),
                true,
                "cuda:0",
                "sglang",
                "nixl",
                Map.of("bootstrap_port", 8998, "extra", java.util.Arrays.asList(1, "a", null))),
            new EngineSpec(
                "d0",
                URI.create("http://10.0.0.2:8000"),
                EngineRole.DECODE,
                null,
                false,
                "1",
                "vllm",
                "nixl"),
            new EngineSpec(
                "b0",
                URI.create("http://[::1]:8002"),
                EngineRole.BOTH,
                null,
                false,
                null,
                "vllm",
                "nixl"));
    assertThat(config.engineContract())
        .isEqualTo(
            new EngineContract(
                "0.11.0", "sha256:abc", "0.6.1", "2", "LlamaForCausalLM", "bfloat16", 8, 128, 32,
                "FLASH_ATTN", "fp8", 16, "HND", 2, false, "NixlConnector", "kv_both",
                TransferMode.PUSH, Map.of("method", "eagle", "num_speculative_tokens", 3),
                "c0ffee", 30.0));
    assertThat(config.slo()).isEqualTo(new SloConfig(1.25, 0.04));
    assertThat(config.controller())
        .isEqualTo(
            new ControllerConfig(
                true, 0.5, 7, 2, 3, 50,
                new ThresholdsConfig(1.2, 0.4, 11, 4, 6, 2.5, 9),
                new ReactiveConfig(
                    121, 3, 0.7, 12, 0.6, 0.07, 4, 61, 122, 13, 0.3, 0.45, 2.2, 0.25, 9)));
    assertThat(config.serving())
        .isEqualTo(
            new ServingConfig(
                AdmissionMode.OPEN, 0.2, 768, 64, 3.5, 2, 0.05, 0.8, 20, 0.25, 1048576, 2097152,
                300, 45, 12, 7.5, 0, 1000));
    assertThat(config.engine())
        .isEqualTo(
            new EngineConfig(
                4.5, "runs/ftt.json", 10, false, 1.5, 4.1, 3, 2.5, 1.75, 6, "ENGINE_KEY",
                EngineApiKey.of("k-123"), "nixl", "vllm"));
    assertThat(config.recovery())
        .isEqualTo(
            new RecoveryConfig(
                4, 11, 12, 5, 7.5, EngineRestartPolicy.WHOLE_WAVE, "/var/lib/narwhal/state.json",
                true, new HealthConfig(31, 2.1, 1.6, 4, 6, 7, 8, 1.9)));
    assertThat(config.profiles()).isEqualTo(new ProfilesConfig("p.json", 0.06, 0.14));
    assertThat(config.continuation()).isEqualTo(new ContinuationConfig(true, 3, "ab".repeat(32)));
    assertThat(config.isDevelopmentFleet()).isFalse();
    assertThat(config.handoffBoundS()).isEqualTo(25.0);
  }

  @Test
  void commentKeys_areIgnoredAtEveryLevel() throws Exception {
    ObjectNode root = minimal();
    root.put("_comment", "top");
    root.putObject("_disabled_section").put("anything", 1);
    engine(root, 0).put("_note", "producer");
    section(root, "slo").put("_why", "tight");
    section(root, "serving").put("_comment", 1).put("max_attempts", 2);
    section(root, "engine").putArray("_list").add(1);
    ObjectNode recovery = section(root, "recovery");
    recovery.putObject("health").put("_c", true).put("window_s", 40);
    ObjectNode controller = section(root, "controller");
    controller.putObject("thresholds").put("_c", "x");
    controller.putObject("reactive").put("_c", "x");
    section(root, "profiles").put("_c", "x");
    section(root, "continuation").put("_c", "x");
    section(root, "hardware").put("_c", "dropped").put("gpus", 2);
    ObjectNode contract = section(root, "engine_contract");
    contract.put("_c", "x").put("kv_lease_duration_s", 12);
    contract.putObject("speculative_config").put("_c", "x").put("method", "ngram");

    FleetConfig config = parse(root);

    assertThat(config.serving().maxAttempts()).isEqualTo(2);
    assertThat(config.recovery().health().windowS()).isEqualTo(40.0);
    assertThat(config.hardware().values()).containsOnlyKeys("gpus");
    assertThat(config.engineContract()).isNotNull();
    assertThat(config.engineContract().speculativeConfig()).containsOnlyKeys("method");
    assertThat(config.handoffBoundS()).isEqualTo(10.0);
  }

  @Test
  void exampleFleetFile_parses() throws Exception {
    FleetConfig config = FleetFileParser.read(Path.of("..", "docs", "examples", "fleet.json"));

    assertThat(config.engines())
        .extracting(e -> e.url().toString())
        .containsExactly(
            "http://127.0.0.1:8100",
            "http://127.0.0.1:8101",
            "http://127.0.0.1:8102",
            "http://127.0.0.1:8103");
    assertThat(config.engines())
        .extracting(EngineSpec::role)
        .containsExactly(
            EngineRole.PREFILL, EngineRole.PREFILL, EngineRole.DECODE, EngineRole.DECODE);
    assertThat(config.isDevelopmentFleet()).isTrue();
  }

  @Test
  void configurationReference_jsonExamplesParse() throws Exception {
    String doc = Files.readString(Path.of("..", "docs", "configuration.md"));
    Matcher blocks = Pattern.compile("```json\n(.*?)```", Pattern.DOTALL).matcher(doc);
    Map<String, String> env =
        Map.ofEntries(
            Map.entry("ENGINE_API_KEY", "sk-example"),
            Map.entry("ENGINE_0_URL", "http://10.0.0.10:8000"),
            Map.entry("ENGINE_0_ATTEST_URL", "http://10.0.0.10:9000/attest"),
            Map.entry("ENGINE_1_URL", "http://10.0.0.11:8000"),
            Map.entry("ENGINE_1_ATTEST_URL", "http://10.0.0.11:9000/attest"),
            Map.entry("ENGINE_2_URL", "https://10.0.0.12:8443"),
            Map.entry("ENGINE_2_ATTEST_URL", "http://10.0.0.12:9000/attest"),
            Map.entry("ENGINE_3_URL", "http://10.0.0.13:8000"),
            Map.entry("ENGINE_3_ATTEST_URL", "http://10.0.0.13:9000/attest"),
            // The example's TLS files: the test's own certificate and key stand in for them.
            Map.entry("TLS_CERT", TlsConfigTest.fixture("server.crt")),
            Map.entry("TLS_KEY", TlsConfigTest.fixture("server.key")),
            Map.entry("TLS_CLIENT_CA", TlsConfigTest.fixture("ec.crt")),
            Map.entry("ENGINES_CA", TlsConfigTest.fixture("server.crt")));
    List<FleetConfig> parsed = new ArrayList<>();
    while (blocks.find()) {
      parsed.add(FleetFileParser.parse(blocks.group(1), env::get, Set.of("vllm")));
    }

    assertThat(parsed).hasSize(3);
    assertThat(parsed.get(1).cache().mode()).as("the cache section's example").isEqualTo(CacheMode.EVENTS);
    FleetConfig production = parsed.get(2);
    assertThat(production.handoffBoundS()).isEqualTo(25.0);
    assertThat(production.serving().tls().clientAuth()).isEqualTo(ClientAuthMode.REQUIRE);
    assertThat(production.engine().tls().caBundle()).isNotNull();
  }

  @Test
  void read_fileOnDisk_usesGivenEnvironment(@TempDir Path dir) throws Exception {
    ObjectNode root = minimal();
    engine(root, 0).put("url", "${PREFILL_URL}");
    Path file = dir.resolve("fleet.json");
    Files.writeString(file, root.toString());

    FleetConfig config =
        FleetFileParser.read(
            file, Map.of("PREFILL_URL", "http://10.1.1.1:7000")::get, Set.of("vllm"));

    assertThat(config.engines().get(0).url()).isEqualTo(URI.create("http://10.1.1.1:7000"));
  }

  @Test
  void wholeStringVariable_isReadFromTheEnvironment() throws Exception {
    ObjectNode root = minimal();
    root.put("model", "${MODEL}");
    engine(root, 0).put("url", "${P0_URL}");
    engine(root, 1).put("role", "${D0_ROLE}");
    section(root, "engine").put("first_token_calibration_path", "literal-${NOT_A_REFERENCE}");

    FleetConfig config =
        parse(
            root,
            Map.of(
                "MODEL", "served-model", "P0_URL", "http://192.168.0.7:8100", "D0_ROLE", "both"));

    assertThat(config.model()).isEqualTo("served-model");
    assertThat(config.engines().get(0).url()).isEqualTo(URI.create("http://192.168.0.7:8100"));
    assertThat(config.engines().get(1).role()).isEqualTo(EngineRole.BOTH);
    assertThat(config.engine().firstTokenCalibrationPath()).isEqualTo("literal-${NOT_A_REFERENCE}");
  }

  @Test
  void engineUrl_isReducedToItsOrigin() throws Exception {
    ObjectNode root = minimal();
    engine(root, 0).put("url", "HTTP://LocalHost:8100/");
    engine(root, 1).put("url", "https://engine.internal");

    FleetConfig config = parse(root);

    assertThat(config.engines().get(0).url()).isEqualTo(URI.create("http://localhost:8100"));
    assertThat(config.engines().get(1).url()).isEqualTo(URI.create("https://engine.internal"));
  }

  @Test
  void dialect_perEngineOverride_resolvesAgainstInjectedSet() throws Exception {
    ObjectNode root = minimal();
    section(root, "engine").put("dialect", "sglang");
    engine(root, 1).put("dialect", "vllm");

    FleetConfig config =
        FleetFileParser.parse(root.toString(), name -> null, Set.of("vllm", "sglang"));

    assertThat(config.engine().dialect()).isEqualTo("sglang");
    assertThat(config.engines()).extracting(EngineSpec::dialect).containsExactly("sglang", "vllm");
  }

  @Test
  void dialectOptions_absentOrNull_isEmpty_andIsKeptPerEngine() throws Exception {
    ObjectNode root = minimal();
    engine(root, 0).putNull("dialect_options");
    engine(root, 1).putObject("dialect_options").put("bootstrap_port", 9001);

    FleetConfig config = parse(root);

    assertThat(config.engines().get(0).dialectOptions()).isEmpty();
    assertThat(config.engines().get(1).dialectOptions()).containsExactly(Map.entry("bootstrap_port", 9001));
    assertThat(config.engines().get(1).withRole(EngineRole.BOTH).dialectOptions())
        .isEqualTo(config.engines().get(1).dialectOptions());
  }

  @Test
  void nullEngineContract_meansDevelopmentFleet() throws Exception {
    ObjectNode root = minimal();
    root.putNull("engine_contract");
    root.putNull("continuation");
    root.putNull("hardware");

    FleetConfig config = parse(root);

    assertThat(config.engineContract()).isNull();
    assertThat(config.continuation()).isEqualTo(ContinuationConfig.defaults());
    assertThat(config.hardware()).isEqualTo(HardwareConfig.defaults());
  }

  @Test
  void contractKeys_nullLeavesFieldUnpinned() throws Exception {
    ObjectNode root = minimal();
    section(root, "engine_contract").putNull("vllm_version").putNull("kv_lease_duration_s");

    FleetConfig config = parse(root);

    assertThat(config.engineContract()).isEqualTo(EngineContract.defaults());
    assertThat(config.handoffBoundS()).isNull();
  }

  @Test
  void queue_onWithPositiveTimeout_parses() throws Exception {
    ObjectNode root = minimal();
    section(root, "serving").put("queue_capacity", 16).put("queue_timeout_s", 2);

    assertThat(parse(root).serving().queueCapacity()).isEqualTo(16);
  }
}
