package narwhal.config;

import static narwhal.config.FleetJson.engine;
import static narwhal.config.FleetJson.errorsOf;
import static narwhal.config.FleetJson.minimal;
import static narwhal.config.FleetJson.section;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FleetFileParserErrorsTest {

  @Test
  void unknownKeys_areReportedWithTheirPaths() {
    ObjectNode root = minimal();
    root.put("modle", "x");
    engine(root, 1).put("port", 8101);
    section(root, "serving").put("max_attempt", 2);
    section(root, "controller").putObject("thresholds").put("expnd", 1.0);
    section(root, "recovery").putObject("health").put("bogus", 1);
    section(root, "engine_contract").put("gpu_count", 8);
    section(root, "continuation").put("replays", 1);

    assertThat(errorsOf(root))
        .containsExactlyInAnyOrder(
            "$.modle: unknown key (did you mean model?)",
            "$.engines[1].port: unknown key",
            "$.serving.max_attempt: unknown key (did you mean max_attempts?)",
            "$.controller.thresholds.expnd: unknown key (did you mean expand?)",
            "$.recovery.health.bogus: unknown key",
            "$.engine_contract.gpu_count: unknown key",
            "$.continuation.replays: unknown key");
  }

  @Test
  void unknownKey_withPunctuation_isQuotedInThePath() {
    ObjectNode root = minimal();
    section(root, "serving").put("max attempts", 2);

    assertThat(errorsOf(root))
        .containsExactly(
            "$.serving[\"max attempts\"]: unknown key (did you mean max_attempts?)");
  }

  @Test
  void severalProblems_areAllReportedInOnePass() {
    ObjectNode root = minimal();
    section(root, "serving").put("max_attempts", "two").put("request_timeout_s", -1);
    engine(root, 0).put("role", "x");
    section(root, "recovery").put("eject_after", 0);
    section(root, "engine").put("first_token_timeout_s", true);

    assertThat(errorsOf(root))
        .containsExactlyInAnyOrder(
            "$.serving.max_attempts: must be an integer >= 1, got \"two\"",
            "$.serving.request_timeout_s: must be a number > 0, got -1",
            "$.engines[0].role: must be one of prefill, decode, both, got \"x\"",
            "$.recovery.eject_after: must be an integer >= 1, got 0",
            "$.engine.first_token_timeout_s: must be a number > 0, got true");
  }

  @Test
  void exceptionMessage_listsEveryErrorOnItsOwnLine() {
    ObjectNode root = minimal();
    section(root, "serving").put("max_attempts", 0).put("max_connections", 0);

    assertThatThrownBy(() -> FleetJson.parse(root))
        .isInstanceOf(FleetConfigException.class)
        .hasMessage(
            "invalid fleet configuration (2 errors):\n"
                + "$.serving.max_connections: must be an integer >= 1, got 0\n"
                + "$.serving.max_attempts: must be an integer >= 1, got 0");
  }

  @Test
  void integers_rejectBooleansFractionsStringsAndNull() {
    ObjectNode root = minimal();
    ObjectNode serving = section(root, "serving");
    serving.put("max_attempts", true).put("max_connections", 2.5).put("queue_capacity", "3");
    serving.putNull("max_request_bytes");
    section(root, "recovery").put("eject_after", 3.0);
    section(root, "engine").put("control_connections", 3_000_000_000L);

    assertThat(errorsOf(root))
        .containsExactlyInAnyOrder(
            "$.serving.max_attempts: must be an integer >= 1, got true",
            "$.serving.max_connections: must be an integer >= 1, got 2.5",
            "$.serving.queue_capacity: must be an integer >= 0, got \"3\"",
            "$.serving.max_request_bytes: must be an integer >= 1, got null",
            "$.recovery.eject_after: must be an integer >= 1, got 3.0",
            "$.engine.control_connections: must be an integer from 0 to 2147483647, "
                + "got 3000000000");
  }

  @Test
  void durations_mustBeNonNegativeNumbers_andDeadlinesPositive() {
    ObjectNode root = minimal();
    section(root, "engine")
        .put("decode_read_timeout_s", -0.5)
        .put("connect_timeout_s", 0)
        .put("health_timeout_s", "5");
    section(root, "serving").put("prefill_timeout_s", 0).put("graceful_timeout_s", false);
    section(root, "recovery").put("failure_quarantine_s", -1);
    section(root, "controller").putObject("reactive").put("utilization", 1.5);

    assertThat(errorsOf(root))
        .containsExactlyInAnyOrder(
            "$.engine.decode_read_timeout_s: must be a number >= 0, got -0.5",
            "$.engine.connect_timeout_s: must be a number > 0, got 0",
            "$.engine.health_timeout_s: must be a number > 0, got \"5\"",
            "$.serving.prefill_timeout_s: must be a number > 0, got 0",
            "$.serving.graceful_timeout_s: must be a number >= 0, got false",
            "$.recovery.failure_quarantine_s: must be a number >= 0, got -1",
            "$.controller.reactive.utilization: must be a number in (0, 1], got 1.5");
  }

  @Test
  void clientConnectionLimits_mustBeNonNegativeTimeouts_andAPositiveCap() {
    ObjectNode root = minimal();
    section(root, "serving")
        .put("header_timeout_s", -1)
        .put("idle_timeout_s", "90")
        .put("max_client_connections", 0);

    assertThat(errorsOf(root))
        .containsExactlyInAnyOrder(
            "$.serving.header_timeout_s: must be a number >= 0, got -1",
            "$.serving.idle_timeout_s: must be a number >= 0, got \"90\"",
            "$.serving.max_client_connections: must be an integer >= 1, got 0");
  }

  @Test
  void clientConnectionCap_belowTheInFlightLimit_isRefused() {
    ObjectNode root = minimal();
    section(root, "serving").put("max_client_connections", 100);

    assertThat(errorsOf(root))
        .containsExactly("$.serving.max_client_connections: must be >= max_connections (100 < 512)");
  }

  @Test
  void zeroDecodeReadTimeout_isAllowed() throws Exception {
    ObjectNode root = minimal();
    section(root, "engine").put("decode_read_timeout_s", 0);

    assertThat(FleetJson.parse(root).engine().decodeReadTimeoutS()).isZero();
  }

  @Test
  void crossKeyRanges_areChecked() {
    ObjectNode root = minimal();
    section(root, "serving")
        .put("queue_capacity", 8)
        .put("retry_base_s", 2)
        .put("retry_cap_s", 0.5);
    ObjectNode controller = section(root, "controller");
    controller.putObject("thresholds").put("expand", 0.5).put("shrink", 0.5);
    controller
        .putObject("reactive")
        .put("evidence_span_s", 90)
        .put("evidence_max_span_s", 60)
        .put("decode_correction_min", 3);

    assertThat(errorsOf(root))
        .containsExactlyInAnyOrder(
            "$.serving.queue_timeout_s: must be > 0 when queue_capacity is > 0 "
                + "(queue_capacity is 8)",
            "$.serving.retry_base_s: must be <= retry_cap_s (2 > 0.5)",
            "$.controller.thresholds.shrink: must be < expand (0.5 >= 0.5)",
            "$.controller.reactive.evidence_max_span_s: must be >= evidence_span_s (60 < 90)",
            "$.controller.reactive.decode_correction_max: must be >= decode_correction_min "
                + "(2 < 3)");
  }

  @Test
  void crossKeyCheck_isSkippedWhenOneSideIsAlreadyInvalid() {
    ObjectNode root = minimal();
    section(root, "serving").put("retry_base_s", "slow").put("retry_cap_s", 0.05);

    assertThat(errorsOf(root))
        .containsExactly("$.serving.retry_base_s: must be a number >= 0, got \"slow\"");
  }

  @Test
  void requiredTopLevelKeys_areReported() {
    ObjectNode root = FleetJson.MAPPER.createObjectNode();
    root.put("_comment", "nearly empty");

    assertThat(errorsOf(root))
        .containsExactlyInAnyOrder(
            "$.schema: required: \"narwhal.fleet\"",
            "$.schema_version: required: 1",
            "$.model: required: a non-empty string",
            "$.engines: required: a non-empty array of engine objects",
            "$.slo: required: an object with ttft_s and tpot_s");
  }

  @Test
  void schemaAndModel_wrongValues() {
    ObjectNode root = minimal();
    root.put("schema", "narwhal.state").put("schema_version", 2).put("model", " ");

    assertThat(errorsOf(root))
        .containsExactlyInAnyOrder(
            "$.schema: must be \"narwhal.fleet\", got \"narwhal.state\"",
            "$.schema_version: must be 1, got 2",
            "$.model: must be a non-empty string, got \" \"");
  }

  @Test
  void slo_targetsRequiredAndPositive() {
    ObjectNode root = minimal();
    root.putObject("slo").put("tpot_s", 0);

    assertThat(errorsOf(root))
        .containsExactlyInAnyOrder(
            "$.slo.ttft_s: required: a number > 0", "$.slo.tpot_s: must be a number > 0, got 0");
  }

  @Test
  void engines_mustBeANonEmptyArrayOfObjects() {
    ObjectNode root = minimal();
    root.putArray("engines");
    assertThat(errorsOf(root))
        .containsExactly("$.engines: must be a non-empty array of engine objects, got []");

    root.put("engines", "p0,d0");
    assertThat(errorsOf(root))
        .containsExactly("$.engines: must be a non-empty array of engine objects, got \"p0,d0\"");

    ObjectNode mixed = minimal();
    ((ArrayNode) mixed.get("engines")).add("http://127.0.0.1:8102");
    assertThat(errorsOf(mixed))
        .containsExactly("$.engines[2]: must be an engine object, got \"http://127.0.0.1:8102\"");
  }

  @Test
  void engineEntries_areValidated() {
    ObjectNode root = minimal();
    ArrayNode engines = (ArrayNode) root.get("engines");
    engines.addObject().put("iid", "p0").put("url", "http://127.0.0.1:8102/v1");
    engines.addObject().put("iid", "").put("url", "ftp://127.0.0.1:8103");
    engines.addObject().put("url", 8104).put("pin", "yes");
    engines
        .addObject()
        .put("iid", "d9")
        .put("url", "http://127.0.0.1:8101/")
        .put("attestation_url", "attest.local/x")
        .put("shared_device", -1);
    engines.addObject().put("iid", "d10").put("url", "http://127.0.0.1:8105?x=1");

    assertThat(errorsOf(root))
        .containsExactlyInAnyOrder(
            "$.engines[2].iid: duplicates $.engines[0].iid (\"p0\")",
            "$.engines[2].url: must be an absolute http(s) URL with no path, query or user, "
                + "got \"http://127.0.0.1:8102/v1\"",
            "$.engines[3].iid: must be a non-empty string, got \"\"",
            "$.engines[3].url: must be an absolute http(s) URL with no path, query or user, "
                + "got \"ftp://127.0.0.1:8103\"",
            "$.engines[4].iid: required: a non-empty string",
            "$.engines[4].url: must be a non-empty string, got 8104",
            "$.engines[4].pin: must be true or false, got \"yes\"",
            "$.engines[5].url: duplicates $.engines[1].url (http://127.0.0.1:8101)",
            "$.engines[5].attestation_url: must be an absolute http(s) URL, got \"attest.local/x\"",
            "$.engines[5].shared_device: must be a device name or a device index >= 0, got -1",
            "$.engines[6].url: must be an absolute http(s) URL with no path, query or user, "
                + "got \"http://127.0.0.1:8105?x=1\"");
  }

  @Test
  void coverage_needsAPrefillCapableAndADecodeCapableEngine() {
    ObjectNode decodeOnly = minimal();
    engine(decodeOnly, 0).put("role", "decode");
    assertThat(errorsOf(decodeOnly))
        .containsExactly(
            "$.engines: no engine can prefill: give at least one engine role prefill or both");

    ObjectNode prefillOnly = minimal();
    engine(prefillOnly, 1).put("role", "prefill");
    assertThat(errorsOf(prefillOnly))
        .containsExactly(
            "$.engines: no engine can decode: give at least one engine role decode or both");
  }

  @Test
  void coverage_oneEngineWithRoleBoth_coversBothLegs() throws Exception {
    ObjectNode root = minimal();
    ((ArrayNode) root.get("engines")).remove(1);
    engine(root, 0).put("role", "both");

    assertThat(FleetJson.parse(root).engines()).hasSize(1);
  }

  @Test
  void coverage_isNotJudgedWhenARoleIsInvalid() {
    ObjectNode root = minimal();
    engine(root, 0).put("role", "prefil");

    assertThat(errorsOf(root))
        .containsExactly("$.engines[0].role: must be one of prefill, decode, both, got \"prefil\"");
  }

  @Test
  void variables_unsetOrMalformed_areErrorsAtTheirPaths() {
    ObjectNode root = minimal();
    engine(root, 0).put("url", "${P0_URL}");
    engine(root, 1).put("url", "${1BAD}");
    root.put("model", "${MODEL}");

    assertThat(errorsOf(root.toString(), Map.of("MODEL", "m"), Set.of("vllm")))
        .containsExactlyInAnyOrder(
            "$.engines[0].url: environment variable P0_URL is not set",
            "$.engines[1].url: \"${1BAD}\" is not a valid environment variable reference");
  }

  @Test
  void variable_value_isValidatedLikeALiteral() {
    ObjectNode root = minimal();
    engine(root, 0).put("url", "${P0_URL}");

    assertThat(errorsOf(root.toString(), Map.of("P0_URL", "not a url"), Set.of("vllm")))
        .containsExactly(
            "$.engines[0].url: must be an absolute http(s) URL with no path, query or user, "
                + "got \"not a url\"");
  }

  @Test
  void connectorAndDialect_onlyKnownValues() {
    ObjectNode root = minimal();
    section(root, "engine").put("connector", "lmcache").put("dialect", "sglang");
    engine(root, 1).put("dialect", "trtllm");

    assertThat(errorsOf(root))
        .containsExactlyInAnyOrder(
            "$.engine.connector: must be one of nixl, got \"lmcache\"",
            "$.engine.dialect: must be one of vllm, got \"sglang\"",
            "$.engines[1].dialect: must be one of vllm, got \"trtllm\"");
  }

  @Test
  void dialectOptions_mustBeAnObject() {
    ObjectNode root = minimal();
    engine(root, 0).put("dialect_options", "bootstrap_port=8998");
    engine(root, 1).putArray("dialect_options");

    assertThat(errorsOf(root))
        .containsExactly(
            "$.engines[0].dialect_options: must be an object, got \"bootstrap_port=8998\"",
            "$.engines[1].dialect_options: must be an object, got []");
  }

  @Test
  void engineContract_fieldsAreTyped() {
    ObjectNode root = minimal();
    section(root, "engine_contract")
        .put("transfer_mode", "pipe")
        .put("kv_role", "kv_sender")
        .put("kv_lease_duration_s", 0)
        .put("kv_heads", 0)
        .put("use_mla", "no")
        .put("vllm_version", 11)
        .put("speculative_config", "eagle");

    assertThat(errorsOf(root))
        .containsExactlyInAnyOrder(
            "$.engine_contract.transfer_mode: must be one of pull, push, got \"pipe\"",
            "$.engine_contract.kv_role: must be one of kv_both, kv_producer, kv_consumer, "
                + "got \"kv_sender\"",
            "$.engine_contract.kv_lease_duration_s: must be a number > 0, got 0",
            "$.engine_contract.kv_heads: must be an integer >= 1, got 0",
            "$.engine_contract.use_mla: must be true or false, got \"no\"",
            "$.engine_contract.vllm_version: must be a non-empty string, got 11",
            "$.engine_contract.speculative_config: must be an object or null, got \"eagle\"");
  }

  @Test
  void sections_mustBeObjects() {
    ObjectNode root = minimal();
    root.put("serving", 5).put("engine_contract", "pinned").put("hardware", "h100");
    root.putArray("recovery");

    assertThat(errorsOf(root))
        .containsExactlyInAnyOrder(
            "$.serving: must be an object, got 5",
            "$.recovery: must be an object, got []",
            "$.engine_contract: must be an object or null, got \"pinned\"",
            "$.hardware: must be an object, got \"h100\"");
  }

  @Test
  void enums_rejectUnknownSpellings() {
    ObjectNode root = minimal();
    section(root, "serving").put("admission", "Predictive");
    section(root, "recovery").put("engine_restart_policy", "wave");
    section(root, "continuation").put("qualification_sha256", "ABC");

    assertThat(errorsOf(root))
        .containsExactlyInAnyOrder(
            "$.serving.admission: must be one of predictive, open, got \"Predictive\"",
            "$.recovery.engine_restart_policy: must be one of individual, whole_wave, "
                + "got \"wave\"",
            "$.continuation.qualification_sha256: must be 64 lowercase hex digits, got \"ABC\"");
  }

  @Test
  void duplicateKey_isReportedWithItsPath() {
    String json =
        minimal().toString().replace("\"slo\":{", "\"slo\":{\"ttft_s\":1,");

    assertThat(errorsOf(json))
        .singleElement()
        .asString()
        .startsWith("$.slo.ttft_s: duplicate key at line 1, column ");
  }

  @Test
  void malformedDocuments_areReported() {
    assertThat(errorsOf("{\"schema\": \"narwhal.fleet\",}"))
        .singleElement()
        .asString()
        .startsWith("$")
        .contains("invalid JSON at line 1, column");
    assertThat(errorsOf("[1, 2]")).containsExactly("$: must be a JSON object, got [1,2]");
    assertThat(errorsOf("  ")).containsExactly("$: empty document");
    assertThat(errorsOf(minimal() + " {}"))
        .singleElement()
        .asString()
        .contains("invalid JSON");
  }

  @Test
  void read_missingFile_namesTheFile(@TempDir Path dir) {
    Path missing = dir.resolve("nope.json");

    assertThatThrownBy(() -> FleetFileParser.read(missing))
        .isInstanceOf(FleetConfigException.class)
        .hasMessageStartingWith("cannot read fleet file " + missing + " (1 error):");
  }
}
