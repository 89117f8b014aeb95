package narwhal.core.checks;

import static narwhal.core.checks.ChecksFixture.D1;
import static narwhal.core.checks.ChecksFixture.attested;
import static narwhal.core.checks.ChecksFixture.done;
import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.util.concurrent.CompletableFuture;
import narwhal.config.EngineContract;
import narwhal.config.TransferMode;
import narwhal.core.checks.CheckResult.Outcome;
import narwhal.testing.ScriptedTransport.Call;
import org.junit.jupiter.api.Test;

/** The contract check: the attestation document against the pinned engine_contract. */
class EngineChecksContractTest {

  private static final EngineContract CONTRACT = EngineContract.builder()
      .vllmVersion("0.11.0").kvHeads(8).useMla(false).transferMode(TransferMode.PULL).kvLeaseDurationS(30.0)
      .build();

  private static final String MATCHING = "{\"schema\":\"narwhal.attestation\",\"schema_version\":1,"
      + "\"vllm_version\":\"0.11.0\",\"kv_heads\":8,\"use_mla\":false,\"transfer_mode\":\"pull\","
      + "\"kv_lease_duration_s\":30,\"dtype\":\"whatever: not pinned\"}";

  @Test
  void contract_noneConfigured_passesWithoutAnyRequest() {
    ChecksFixture f = new ChecksFixture();

    CheckResult result = done(f.checks.contract(D1, f.loop));

    assertThat(result.outcome()).isEqualTo(Outcome.PASSED);
    assertThat(result.detail()).isEqualTo("contract (no contract pinned)");
    assertThat(f.transport.calls()).isEmpty();
  }

  @Test
  void contract_pinnedButNoAttestationUrl_failsSayingToSetIt() {
    ChecksFixture f = new ChecksFixture(CONTRACT);

    CheckResult result = done(f.checks.contract(D1, f.loop));

    assertThat(result.outcome()).isEqualTo(Outcome.FAILED);
    assertThat(result.failedIid()).isEqualTo("d1");
    assertThat(result.detail()).contains("no attestation_url", "set attestation_url");
    assertThat(f.transport.calls()).isEmpty();
  }

  @Test
  void contract_bareOriginUrl_fetchesTheDefaultPathAndPassesOnAMatch() {
    ChecksFixture f = new ChecksFixture(CONTRACT);

    CompletableFuture<CheckResult> future = f.checks.contract(attested(D1, "http://10.0.0.2:9000"), f.loop);
    Call call = f.call(0);
    assertThat(call.engine).isEqualTo(URI.create("http://10.0.0.2:9000"));
    assertThat(call.request.method()).isEqualTo("GET");
    assertThat(call.request.path()).isEqualTo("/narwhal/attestation");
    call.respond(200, MATCHING);

    CheckResult result = done(future);
    assertThat(result.outcome()).isEqualTo(Outcome.PASSED);
    assertThat(result.detail()).isEqualTo("contract ok (5 fields)");
  }

  @Test
  void contract_urlWithPath_fetchesThatPathAndQuery() {
    ChecksFixture f = new ChecksFixture(CONTRACT);

    f.checks.contract(attested(D1, "http://sidecar.local:7000/attest/d1?v=1"), f.loop);

    assertThat(f.call(0).engine).isEqualTo(URI.create("http://sidecar.local:7000"));
    assertThat(f.call(0).request.path()).isEqualTo("/attest/d1?v=1");
  }

  @Test
  void contract_mismatches_listsEveryFieldWithPinnedAndReportedValues() {
    ChecksFixture f = new ChecksFixture(CONTRACT);

    CompletableFuture<CheckResult> future = f.checks.contract(attested(D1, "http://10.0.0.2:9000"), f.loop);
    f.call(0).respond(200, MATCHING.replace("\"0.11.0\"", "\"0.10.2\"").replace("\"kv_heads\":8,", ""));

    CheckResult result = done(future);
    assertThat(result.outcome()).isEqualTo(Outcome.FAILED);
    assertThat(result.detail()).isEqualTo("contract mismatch: vllm_version: pinned \"0.11.0\", engine reports "
        + "\"0.10.2\"; kv_heads: pinned 8, engine reports nothing");
  }

  @Test
  void contract_documentNotFound_failsWithTheUrlAndStatus() {
    ChecksFixture f = new ChecksFixture(CONTRACT);

    CompletableFuture<CheckResult> future = f.checks.contract(attested(D1, "http://10.0.0.2:9000"), f.loop);
    f.call(0).respond(404, "{\"detail\":\"Not Found\"}");

    assertThat(done(future).detail())
        .isEqualTo("attestation document http://10.0.0.2:9000/narwhal/attestation answered HTTP 404");
  }

  @Test
  void contract_documentNotAnObject_fails() {
    ChecksFixture f = new ChecksFixture(CONTRACT);

    CompletableFuture<CheckResult> future = f.checks.contract(attested(D1, "http://10.0.0.2:9000"), f.loop);
    f.call(0).respond(200, "[1,2]");

    assertThat(done(future).detail()).endsWith("is not a JSON object");
  }

  @Test
  void contract_sidecarSilent_failsAtTheHealthTimeout() {
    ChecksFixture f = new ChecksFixture(CONTRACT);

    CompletableFuture<CheckResult> future = f.checks.contract(attested(D1, "http://10.0.0.2:9000"), f.loop);
    f.loop.advanceMillis(4_999);
    assertThat(future).isNotDone();
    f.loop.advanceMillis(1);

    assertThat(done(future).detail()).contains("no answer within 5 s (engine.health_timeout_s)");
    assertThat(f.call(0).cancelled()).isTrue();
  }
}
