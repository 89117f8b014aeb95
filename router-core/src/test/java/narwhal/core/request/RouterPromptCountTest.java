package narwhal.core.request;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.codahale.metrics.Counter;
import java.util.Map;
import java.util.function.UnaryOperator;
import narwhal.config.AdmissionMode;
import narwhal.config.FleetConfig;
import narwhal.config.SloConfig;
import narwhal.core.metrics.SeriesName;
import narwhal.core.profile.DecodeModel;
import narwhal.core.profile.EngineProfile;
import narwhal.core.profile.PrefillModel;
import narwhal.core.request.RouterFixture.Client;
import narwhal.spi.EngineDialects;
import narwhal.testing.OpenAiWire;
import narwhal.testing.ScriptedTransport.Call;
import org.junit.jupiter.api.Test;

/**
 * Counting a prompt with the engine's tokenize route before pricing, on a manual clock: the count
 * is asked of the engine prefill placement would pick and is what admission prices and the
 * reservation weighs; a slow, failing or missing route falls back to the {@code chars_per_token}
 * estimate (counted by cause, and an engine whose route failed is not asked again for a second);
 * the request's deadline and its client going away cancel a count in flight. The count is asked
 * only where something prices with it: these fleets are profiled unless a test says otherwise.
 */
class RouterPromptCountTest {

  private static final String HELLO = "{\"model\":\"m\",\"prompt\":\"hello world\",\"max_tokens\":4,\"stream\":true}";

  /** A router whose dialect counts prompts, over a fleet profiled so admission prices every request. */
  private static RouterFixture tokenizing(UnaryOperator<FleetConfig> tweak) {
    return profiled(unprofiled(tweak));
  }

  private static RouterFixture profiled(RouterFixture r) {
    for (String iid : new String[] {"p1", "p2", "d1", "d2"}) {
      r.router.profiles().put(new EngineProfile(iid, null, new PrefillModel(0, 0.001, 0, 1, 100_000),
          new DecodeModel(0.01, 0, 0, 1_000_000, 256), 0.01, 0.02));
    }
    return r;
  }

  private static RouterFixture unprofiled(UnaryOperator<FleetConfig> tweak) {
    return new RouterFixture(tweak.apply(RouterFixture.twoByTwo()), EngineDialects.of(new TokenizingTestDialect()));
  }

  private static FleetConfig tokenizeTimeout(FleetConfig c, double seconds) {
    return c.withEngine(c.engine().withTokenize(true, seconds));
  }

  private static long fallbacks(RouterFixture r, String cause) {
    Counter c = r.router.metrics().registry().getCounters()
        .get(SeriesName.of("narwhal_tokenize_fallbacks_total", "cause", cause));
    return c.getCount();
  }

  private static void complete(RouterFixture r, Call prefill) {
    r.prefillOk(prefill);
    r.transport.last().sse().event(OpenAiWire.completionToken("a")).event("[DONE]").end();
  }

  @Test
  void aTextPrompt_isCountedByThePrefillEngine_andTheCountIsWhatItsReservationWeighs() {
    RouterFixture r = tokenizing(c -> c);
    Client c = r.submit(OpenAiWire.completions(HELLO));

    Call count = r.call(0);
    assertThat(count.request.method()).isEqualTo("POST");
    assertThat(count.request.path()).isEqualTo("/tokenize");
    assertThat(r.iidOf(count)).isEqualTo("p1");
    assertThat(count.body()).isEqualTo("{\"prompt\":\"hello world\"}");
    assertThat(RouterFixture.backendId(count)).isEqualTo(c.handle().requestId() + "-c");
    assertThat(r.transport.calls()).as("no prefill before the count").hasSize(1);

    count.respond(200, "{\"count\":42,\"max_model_len\":4096,\"tokens\":[]}");

    Call prefill = r.call(1);
    assertThat(prefill.request.path()).isEqualTo("/v1/completions");
    assertThat(r.fleet.get(r.iidOf(prefill)).residentPrefillTokens()).isEqualTo(42);
    complete(r, prefill);
    assertThat(c.sink().log).endsWith("complete");
    Map<String, Object> row = r.row();
    assertThat(row).containsEntry("input_len", 42L).containsEntry("input_sized", "exact");
    for (String cause : new String[] {"unsupported", "timeout", "error", "backoff"}) {
      assertThat(fallbacks(r, cause)).as(cause).isZero();
    }
  }

  @Test
  void chatMessages_areCountedWithTheirMessages() {
    RouterFixture r = tokenizing(c -> c);
    r.submit(OpenAiWire.chat("{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"hi there\"}],"
        + "\"max_tokens\":4,\"stream\":true}"));

    assertThat(r.call(0).request.path()).isEqualTo("/tokenize");
    assertThat(r.call(0).body()).isEqualTo("{\"messages\":[{\"role\":\"user\",\"content\":\"hi there\"}]}");
  }

  @Test
  void countingTime_isPartOfWhatAdmissionPrices() {
    RouterFixture r = tokenizing(c -> c.withSlo(SloConfig.of(1.0, 0.05)));
    Client c = r.submit(OpenAiWire.completions(HELLO));
    r.loop.advanceMillis(300);
    r.call(0).respond(200, "{\"count\":800}");

    // 0.3 s counting + 0.8 s own prefill = 1.1 s: over slo.ttft_s 1 s with margin 0.
    assertThat(c.sink().errors).hasSize(1);
    assertThat(c.sink().errors.get(0).status()).isEqualTo(429);
    assertThat(r.row()).containsEntry("reason", "queue").containsEntry("input_len", 800L);
    @SuppressWarnings("unchecked")
    Map<String, Object> price = (Map<String, Object>) r.row().get("admission_price");
    assertThat((double) price.get("elapsed_s")).isCloseTo(0.3, within(1e-9));
  }

  @Test
  void aSlowCount_fallsBackToTheEstimateAtTheTimeout_andTheEngineIsNotAskedAgainForASecond() {
    RouterFixture r = tokenizing(c -> tokenizeTimeout(c, 0.5));
    Client first = r.submit(OpenAiWire.completions(HELLO));
    Call count = r.call(0);

    r.loop.advanceMillis(499);
    assertThat(r.transport.calls()).hasSize(1);
    r.loop.advanceMillis(1);

    assertThat(count.cancelled()).isTrue();
    Call prefill = r.call(1);
    assertThat(prefill.request.path()).isEqualTo("/v1/completions");
    // "hello world" is 11 characters: 3 tokens at engine.chars_per_token 3.8.
    assertThat(r.fleet.get(r.iidOf(prefill)).residentPrefillTokens()).isEqualTo(3);
    assertThat(fallbacks(r, "timeout")).isEqualTo(1);
    complete(r, prefill);
    assertThat(first.sink().log).endsWith("complete");
    // The estimate weighed the reservation; the journal takes the producer's own count, 5.
    assertThat(r.row()).containsEntry("input_sized", "estimated").containsEntry("input_len", 5L);

    // Within the second after the failure, p1 (least loaded again) is not asked.
    r.loop.advanceMillis(900);
    r.submit(OpenAiWire.completions(HELLO));
    assertThat(r.transport.last().request.path()).isEqualTo("/v1/completions");
    assertThat(fallbacks(r, "backoff")).isEqualTo(1);
    complete(r, r.transport.last());

    // After it, p1 is asked again.
    r.loop.advanceMillis(200);
    r.submit(OpenAiWire.completions(HELLO));
    assertThat(r.transport.last().request.path()).isEqualTo("/tokenize");
  }

  @Test
  void anErrorOrAnUnreadableAnswer_fallsBackToTheEstimate() {
    RouterFixture r = tokenizing(c -> c);
    r.submit(OpenAiWire.completions(HELLO));
    r.call(0).respond(404, "{\"detail\":\"Not Found\"}");

    assertThat(r.call(1).request.path()).isEqualTo("/v1/completions");
    assertThat(fallbacks(r, "error")).isEqualTo(1);

    RouterFixture other = tokenizing(c -> c);
    other.submit(OpenAiWire.completions(HELLO));
    other.call(0).respond(200, "{\"tokens\":[1,2]}");
    assertThat(other.call(1).request.path()).isEqualTo("/v1/completions");
    assertThat(fallbacks(other, "error")).isEqualTo(1);
  }

  @Test
  void aDialectWithoutATokenizeRoute_isEstimated_andCountedAsUnsupported() {
    RouterFixture r = profiled(new RouterFixture(RouterFixture.twoByTwo()));
    r.submit(OpenAiWire.completions(HELLO));

    assertThat(r.call(0).request.path()).isEqualTo("/v1/completions");
    assertThat(fallbacks(r, "unsupported")).isEqualTo(1);
  }

  @Test
  void tokenizeOff_asksNoEngine_andIsNoFallback() {
    RouterFixture r = tokenizing(c -> c.withEngine(c.engine().withTokenize(false, 2)));
    r.submit(OpenAiWire.completions(HELLO));

    assertThat(r.call(0).request.path()).isEqualTo("/v1/completions");
    assertThat(fallbacks(r, "unsupported")).isZero();
  }

  @Test
  void aFleetNothingPricesWith_asksNoEngine_andTheEstimateWeighsTheReservation() {
    RouterFixture r = unprofiled(c -> c);
    Client c = r.submit(OpenAiWire.completions(HELLO));

    Call prefill = r.call(0);
    assertThat(prefill.request.path()).as("no count: nothing would price with it").isEqualTo("/v1/completions");
    // "hello world" is 11 characters: 3 tokens at engine.chars_per_token 3.8.
    assertThat(r.fleet.get(r.iidOf(prefill)).residentPrefillTokens()).isEqualTo(3);
    complete(r, prefill);
    assertThat(c.sink().log).endsWith("complete");
    assertThat(r.row()).as("the journal still gets the producer's own count from its answer")
        .containsEntry("input_len", 5L).containsEntry("input_sized", "estimated");
    for (String cause : new String[] {"unsupported", "timeout", "error", "backoff"}) {
      assertThat(fallbacks(r, cause)).as("not a fallback: " + cause).isZero();
    }
  }

  @Test
  void openAdmission_overAProfiledFleet_stillCounts_forPricedPlacement() {
    RouterFixture r = tokenizing(c -> c.withServing(c.serving().withAdmission(AdmissionMode.OPEN)));
    r.submit(OpenAiWire.completions(HELLO));

    assertThat(r.call(0).request.path()).isEqualTo("/tokenize");
  }

  @Test
  void aTokenIdPrompt_isCountedByTheRouter() {
    RouterFixture r = tokenizing(c -> c);
    r.submit(OpenAiWire.completions("{\"model\":\"m\",\"prompt\":[5,6,7],\"max_tokens\":4,\"stream\":true}"));

    assertThat(r.call(0).request.path()).isEqualTo("/v1/completions");
    assertThat(r.fleet.get(r.iidOf(r.call(0))).residentPrefillTokens()).isEqualTo(3);
  }

  @Test
  void theClientGoingAway_cancelsTheCount() {
    RouterFixture r = tokenizing(c -> c);
    Client c = r.submit(OpenAiWire.completions(HELLO));

    c.handle().cancel();
    r.loop.runPending();

    assertThat(r.call(0).cancelled()).isTrue();
    r.call(0).respond(200, "{\"count\":5}"); // too late: nothing follows
    assertThat(r.transport.calls()).hasSize(1);
    assertThat(r.row()).containsEntry("terminal", "cancelled").containsEntry("cancelled_phase", "admission");
  }

  @Test
  void theDeadline_cancelsTheCount() {
    RouterFixture r = tokenizing(c -> c.withServing(c.serving().withRequestTimeoutS(1)));
    Client c = r.submit(OpenAiWire.completions(HELLO));

    r.loop.advanceMillis(1000);

    assertThat(r.call(0).cancelled()).isTrue();
    assertThat(c.sink().errors.get(0).status()).isEqualTo(504);
    assertThat(r.transport.calls()).hasSize(1);
    assertThat(r.row()).containsEntry("terminal", "expired").containsEntry("reason", "deadline");
  }
}
