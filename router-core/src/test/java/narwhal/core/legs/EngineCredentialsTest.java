package narwhal.core.legs;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import narwhal.config.EngineApiKey;
import narwhal.config.EngineContract;
import narwhal.core.checks.CheckResult;
import narwhal.core.checks.ChecksFixture;
import narwhal.core.checks.EngineChecks;
import narwhal.testing.ManualScheduler;
import narwhal.api.FailureClass;
import narwhal.spi.Phase;
import narwhal.spi.PrefillResult;
import narwhal.spi.EngineDialects;
import narwhal.spi.EngineHttpRequest;
import narwhal.spi.ExchangeOptions;
import narwhal.spi.ExchangeHandler;
import narwhal.spi.TransportFailure;
import narwhal.proto.v1.Route;
import narwhal.testing.ScriptedTransport.Call;
import narwhal.testing.ScriptedTransport;
import narwhal.testing.TestDialect;
import narwhal.testing.TestDialectWire;
import org.junit.jupiter.api.Test;

/** {@code engine.engine_api_key_env}: every engine request carries the router's key; a 401/403 is the router's fault. */
class EngineCredentialsTest {

  private static final String KEY = "sk-router-7";
  private static final LegLimits PREFILL = LegLimits.prefill(Duration.ofSeconds(30), ExchangeOptions.defaults());

  private final ManualScheduler loop = new ManualScheduler();
  private final ScriptedTransport scripted = new ScriptedTransport();
  private final EngineDialects dialects = EngineDialects.of(new TestDialect());
  private final AtomicInteger ids = new AtomicInteger();
  private final RecordingDecodeListener listener = new RecordingDecodeListener();

  private EngineClient client(EngineApiKey key) {
    return new EngineClient(AuthorizingTransport.wrap(scripted, key), dialects, () -> "b" + ids.incrementAndGet());
  }

  @Test
  void bothLegs_carryTheBearerKey() throws Exception {
    EngineClient client = client(EngineApiKey.of(KEY));

    CompletableFuture<PrefillResult> prefill = client.prefill(LegFixture.P1, LegFixture.COMPLETION, PREFILL, loop);
    Call prefillCall = scripted.last();
    prefillCall.respond(200, TestDialectWire.prefillResponse(TestDialectWire.PRODUCER_HANDOFF));
    client.decode(LegFixture.D1, LegFixture.COMPLETION, prefill.get(), LegFixture.decodeLimits(2500, 10_000), loop,
        listener);
    Call decodeCall = scripted.last();

    assertThat(List.of(prefillCall, decodeCall)).allSatisfy(call -> assertThat(call.request.headers())
        .containsEntry("Authorization", "Bearer " + KEY)
        .containsKey("X-Request-Id"));
  }

  @Test
  void withoutAKey_noLegCarriesAnAuthorizationHeader() throws Exception {
    assertThat(AuthorizingTransport.wrap(scripted, EngineApiKey.none())).isSameAs(scripted);
    EngineClient client = client(EngineApiKey.none());

    CompletableFuture<PrefillResult> prefill = client.prefill(LegFixture.P1, LegFixture.CHAT, PREFILL, loop);
    scripted.last().respond(200, TestDialectWire.prefillResponse(TestDialectWire.PRODUCER_HANDOFF));
    client.decode(LegFixture.D1, LegFixture.CHAT, prefill.get(), LegFixture.decodeLimits(2500, 10_000), loop,
        listener);

    assertThat(scripted.calls()).hasSize(2).allSatisfy(call -> assertThat(call.request.headers().keySet())
        .noneMatch(name -> name.equalsIgnoreCase("Authorization")));
  }

  @Test
  void checks_healthModelListAndAttestation_carryTheKey() {
    var transport = AuthorizingTransport.wrap(scripted, EngineApiKey.of(KEY));
    EngineChecks checks = new EngineChecks(ChecksFixture.FLEET.withEngineContract(
        EngineContract.builder().kvHeads(8).build()), transport, dialects, client(EngineApiKey.of(KEY)));

    checks.health(ChecksFixture.D1, loop);
    checks.servesModel(ChecksFixture.D1, loop);
    checks.contract(ChecksFixture.attested(ChecksFixture.D1, "http://10.0.0.2:9000/attest"), loop);

    assertThat(scripted.calls()).extracting(c -> c.request.path())
        .containsExactly("/health", "/v1/models", "/attest");
    assertThat(scripted.calls()).allSatisfy(call ->
        assertThat(call.request.headers()).containsEntry("Authorization", "Bearer " + KEY));
  }

  @Test
  void prefill401_is502NamingTheKeyToFix_notTheClientsFault() {
    CompletableFuture<PrefillResult> prefill =
        client(EngineApiKey.of(KEY)).prefill(LegFixture.P1, LegFixture.COMPLETION, PREFILL, loop);
    scripted.last().respond(401, "{\"error\":\"Unauthorized\"}");

    EngineFailure failure = LegFixture.prefillFailure(prefill);
    assertThat(failure.status()).isEqualTo(502);
    assertThat(failure.phase()).isEqualTo(Phase.PREFILL);
    assertThat(failure.failureClass()).isEqualTo(FailureClass.INFERENCE_STATUS);
    assertThat(failure.isTransient()).isFalse();
    assertThat(failure.reason()).isEqualTo("engine_credentials");
    assertThat(failure.getMessage()).isEqualTo("prefill engine p1 refused the router's credentials (HTTP 401): "
        + "check engine.engine_api_key_env (it must name a variable holding the key the engine was started with, "
        + "e.g. vLLM's --api-key)");
    assertThat(failure.toRouterError().type()).isEqualTo("prefill");
    assertThat(failure.toRouterError().status()).isEqualTo(502);
  }

  @Test
  void decode403_is502ForTheDecodePhase() {
    client(EngineApiKey.none()).decode(LegFixture.D1, LegFixture.COMPLETION, LegFixture.handoff(Route.ROUTE_COMPLETIONS),
        LegFixture.decodeLimits(2500, 10_000), loop, listener);
    scripted.last().respond(403, "{\"error\":{\"message\":\"Forbidden\",\"type\":\"PermissionDeniedError\","
        + "\"param\":null,\"code\":403}}");

    EngineFailure failure = listener.failure();
    assertThat(failure.status()).isEqualTo(502);
    assertThat(failure.phase()).isEqualTo(Phase.DECODE);
    assertThat(failure.failureClass()).isEqualTo(FailureClass.INFERENCE_STATUS);
    assertThat(failure.getMessage()).startsWith("decode engine d1 refused the router's credentials (HTTP 403): "
        + "check engine.engine_api_key_env");
  }

  @Test
  void otherClient4xx_isStillRelayedAsTheClientsFault() {
    CompletableFuture<PrefillResult> prefill =
        client(EngineApiKey.of(KEY)).prefill(LegFixture.P1, LegFixture.COMPLETION, PREFILL, loop);
    scripted.last().respond(400, "{\"error\":{\"message\":\"too long\",\"type\":\"BadRequestError\","
        + "\"param\":null,\"code\":400}}");

    assertThat(LegFixture.prefillFailure(prefill).failureClass()).isEqualTo(FailureClass.REJECTED);
    assertThat(LegFixture.prefillFailure(prefill).status()).isEqualTo(400);
  }

  @Test
  void modelList401_failsTheCheckWithTheCredentialsMessage() {
    EngineChecks checks = new EngineChecks(ChecksFixture.FLEET, scripted, dialects, client(EngineApiKey.none()));

    CompletableFuture<CheckResult> future = checks.servesModel(ChecksFixture.D1, loop);
    scripted.last().respond(401, "{\"error\":\"Unauthorized\"}");

    CheckResult result = ChecksFixture.done(future);
    assertThat(result.failed()).isTrue();
    assertThat(result.detail()).startsWith("engine d1's model list (GET /v1/models) refused the router's "
        + "credentials (HTTP 401): check engine.engine_api_key_env");
  }

  @Test
  void aHeaderOfAnotherSpelling_isReplacedSoExactlyOneIsSent() {
    var transport = AuthorizingTransport.wrap(scripted, EngineApiKey.of(KEY));
    EngineHttpRequest request = new EngineHttpRequest("GET", "/v1/models", Map.of("authorization", "Bearer other"),
        new byte[0]);

    transport.open(URI.create("http://10.0.0.2:8200"), request, ExchangeOptions.defaults(), loop, new NoHandler());

    assertThat(scripted.last().request.headers()).containsOnly(Map.entry("Authorization", "Bearer " + KEY));
  }

  @Test
  void printedRequest_hidesHeaderValues() {
    EngineHttpRequest request = new EngineHttpRequest("POST", "/v1/completions",
        Map.of("Authorization", "Bearer " + KEY), new byte[3]);

    assertThat(request.toString()).doesNotContain(KEY).contains("Authorization").contains("/v1/completions");
  }

  /** A handler for an exchange the test never answers. */
  private static final class NoHandler implements ExchangeHandler {
    @Override
    public void onHead(int status, String contentType) {}

    @Override
    public void onEvent(String data) {}

    @Override
    public void onBody(String body) {}

    @Override
    public void onEnd() {}

    @Override
    public void onFailure(TransportFailure failure) {}
  }
}
