package narwhal.core.checks;

import static narwhal.core.checks.ChecksFixture.D1;
import static narwhal.core.checks.ChecksFixture.attested;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import narwhal.core.profile.EngineGeneration;
import narwhal.spi.EngineDialects;
import narwhal.spi.TransportFailure;
import narwhal.testing.TestDialect;
import org.junit.jupiter.api.Test;

/** What an engine reports about itself: its process generation and its context length. */
class EngineFactsTest {

  private final ChecksFixture f = new ChecksFixture();
  private final EngineFacts facts = new EngineFacts(ChecksFixture.FLEET, f.transport, EngineDialects.of(new TestDialect()));

  @Test
  void generation_readFromTheAttestationDocument_stringOrInteger() {
    CompletableFuture<EngineGeneration> text = facts.current(attested(D1, "http://10.0.0.2:9000"), f.loop);
    f.call(0).respond(200, "{\"schema\":\"narwhal.attestation\",\"process_generation\":\"boot-7\"}");
    CompletableFuture<EngineGeneration> number = facts.current(attested(D1, "http://10.0.0.2:9000/att"), f.loop);
    f.call(1).respond(200, "{\"process_generation\":12}");

    assertThat(f.call(0).request.path()).isEqualTo("/narwhal/attestation");
    assertThat(f.call(1).request.path()).isEqualTo("/att");
    assertThat(text.getNow(null)).isEqualTo(EngineGeneration.known("boot-7"));
    assertThat(number.getNow(null)).isEqualTo(EngineGeneration.known("12"));
  }

  @Test
  void generation_unknown_withTheReason_whenItCannotBeRead() {
    CompletableFuture<EngineGeneration> noUrl = facts.current(D1, f.loop);
    CompletableFuture<EngineGeneration> noField = facts.current(attested(D1, "http://10.0.0.2:9000"), f.loop);
    f.call(0).respond(200, "{\"vllm_version\":\"0.11.0\"}");
    CompletableFuture<EngineGeneration> refused = facts.current(attested(D1, "http://10.0.0.2:9000"), f.loop);
    f.call(1).fail(TransportFailure.Kind.CONNECT_FAILED);
    CompletableFuture<EngineGeneration> silent = facts.current(attested(D1, "http://10.0.0.2:9000"), f.loop);
    CompletableFuture<EngineGeneration> garbled = facts.current(attested(D1, "http://10.0.0.2:9000"), f.loop);
    f.call(3).respond(200, "not json");
    f.loop.advance(5, TimeUnit.SECONDS);

    assertThat(f.transport.calls()).hasSize(4);
    assertThat(noUrl.getNow(null).unknownBecause()).isEqualTo("no attestation_url");
    assertThat(noField.getNow(null).unknownBecause()).isEqualTo("the attestation document has no process_generation");
    assertThat(refused.getNow(null).unknownBecause()).startsWith("unreachable: GET http://10.0.0.2:9000/narwhal/attestation");
    assertThat(silent.getNow(null).unknownBecause()).isEqualTo("no answer within 5 s (engine.health_timeout_s)");
    assertThat(garbled.getNow(null).unknownBecause()).isEqualTo("attestation document is not a JSON object");
  }

  @Test
  void maxModelLen_isTheFleetModelsEntry_orEmpty() {
    CompletableFuture<OptionalLong> len = facts.maxModelLen(D1, f.loop);
    f.call(0).respond(200, ChecksFixture.MODELS);
    CompletableFuture<OptionalLong> missing = facts.maxModelLen(D1, f.loop);
    f.call(1).respond(200, "{\"data\":[{\"id\":\"other\",\"max_model_len\":8192}]}");
    CompletableFuture<OptionalLong> error = facts.maxModelLen(D1, f.loop);
    f.call(2).respond(500, "{}");

    assertThat(len.getNow(null)).hasValue(4096);
    assertThat(missing.getNow(null)).isEmpty();
    assertThat(error.getNow(null)).isEmpty();
  }
}
