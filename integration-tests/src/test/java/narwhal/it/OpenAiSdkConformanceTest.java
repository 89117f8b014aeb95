package narwhal.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import narwhal.config.SloConfig;
import narwhal.core.fleet.EngineState;
import narwhal.core.profile.DecodeModel;
import narwhal.core.profile.EngineProfile;
import narwhal.core.profile.PrefillModel;
import narwhal.sim.SimEngine;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * The official OpenAI Node SDK ({@code openai} from the npm registry, pinned in
 * src/test/openai-sdk/package-lock.json), unmodified, against a router and simulated engines:
 * src/test/openai-sdk/conformance.js runs one case per route and failure class and reports each.
 * Every case becomes a test here, so a failing one names itself.
 *
 * <p>Its packages come from {@code npm ci --prefix integration-tests/src/test/openai-sdk}, which
 * {@code .ci/run} runs before the build; without them this test fails and says so.
 */
class OpenAiSdkConformanceTest {

  private static final long MAX_REQUEST_BYTES = 4096;

  /** Every case conformance.js must report, in its order: one dropped silently fails here. */
  private static final List<String> CASES = List.of(
      "models.list",
      "completions: non-streaming",
      "completions: streaming",
      "completions: streaming with include_usage",
      "chat: non-streaming",
      "chat: streaming",
      "chat: streaming with include_usage",
      "chat: the SDK stream helper assembles the final completion",
      "400: n=2 is a BadRequestError",
      "400: a field of the wrong type is a BadRequestError",
      "400: streaming, refused before the stream starts",
      "404: an unknown model is a NotFoundError",
      "413: a body over serving.max_request_bytes is an APIError with status 413",
      "429: the in-flight limit is a RateLimitError with Retry-After",
      "429: a predictive refusal is a RateLimitError, with a priced Retry-After for the queue and none for the prompt",
      "502: an engine error before output is an InternalServerError",
      "502: streaming, the engine error comes back before the stream starts",
      "504: no first token in time is an InternalServerError",
      "504: non-streaming chat, the same",
      "mid-stream engine error: the stream iterator throws after the first tokens",
      "mid-stream silence: the chat stream iterator throws a 504 after the first tokens");

  /**
   * The prompts conformance.js sends, by the key it uses: what it sends, {@code max_tokens}, and
   * how many of the generated tokens the client sees before the stream ends (fewer when a
   * directive makes it fail).
   */
  private static final Map<String, Prompt> PROMPTS = prompts();

  private static Map<String, Prompt> prompts() {
    Map<String, Prompt> p = new LinkedHashMap<>();
    p.put("completion", new Prompt("sdk completion", 5));
    p.put("completion_stream", new Prompt("sdk completion stream", 6));
    p.put("completion_usage", new Prompt("sdk completion with usage", 4));
    p.put("chat", new Prompt("sdk chat", 5));
    p.put("chat_stream", new Prompt("sdk chat stream", 6));
    p.put("chat_usage", new Prompt("sdk chat with usage", 4));
    p.put("chat_helper", new Prompt("sdk chat stream helper", 5));
    // Holds the admission fleet's only seat for a second: its prefill answers late.
    p.put("holder", new Prompt("sdk holder [[sim:delay-headers=1000,phase=prefill]]", 2));
    // The priced fleet (100 ms of prefill per word, a 1 s budget): 4 words held 1.5 s, then 7
    // words that fit alone but not behind it, then 12 words that fit nowhere.
    p.put("priced_holder", new Prompt("sdk priced holder [[sim:delay-headers=1500,phase=prefill]]", 2));
    p.put("priced_queue", new Prompt("sdk priced request of exactly seven words", 2));
    p.put("priced_prompt", new Prompt("sdk priced prompt far too long for the budget of one second", 2));
    p.put("prefill_500", new Prompt("sdk failing prefill [[sim:status=500,phase=prefill]]", 4));
    p.put("first_token_silence", new Prompt("sdk silent decode [[sim:silence-first=forever,phase=decode]]", 4));
    p.put("mid_stream_error", new Prompt("sdk mid-stream error [[sim:error-after=2,code=500,phase=decode]]", 6, 2));
    p.put("mid_stream_silence", new Prompt("sdk mid-stream silence [[sim:silence-after=2,phase=decode]]", 6, 2));
    return p;
  }

  @TestFactory
  List<DynamicTest> officialOpenAiNodeSdk_seesEveryRouteAndFailureClassAsItsOwnTypes() throws Exception {
    NodeScript sdk = NodeScript.project("openai-sdk", "openai");
    NodeScript.Result run;
    AssertionError leftovers = null;
    try (RoutedFleet fleet = RoutedFleet.start(1, 1, RoutedFleet.fastEngines().build(), c -> c
            .withEngine(c.engine().withFirstTokenTimeoutS(0.5).withDecodeReadTimeoutS(0.3))
            .withServing(c.serving().withMaxRequestBytes(MAX_REQUEST_BYTES))
            // Failure cases follow each other on one engine per role: the breaker must not eject it.
            .withRecovery(c.recovery().withEjectAfter(1000)), null);
        RoutedFleet admission = RoutedFleet.start(1, 1, RoutedFleet.fastEngines().build(),
            c -> c.withServing(c.serving().withMaxConnections(1)), null);
        RoutedFleet priced = RoutedFleet.start(1, 1, RoutedFleet.fastEngines().build(),
            c -> c.withSlo(SloConfig.of(1.0, 0.5)), null)) {
      for (EngineState e : priced.router.router().fleet().engines()) {
        priced.router.router().profiles().put(new EngineProfile(e.iid(), null, new PrefillModel(0, 0.1, 0, 1, 4096),
            new DecodeModel(0.001, 0, 0, 4096, 64), 0.01, 0.02));
      }
      run = sdk.run(Map.of("NARWHAL_SDK_CONFIG", config(fleet, admission, priced).toString()), 40, "conformance.js");
      try {
        fleet.assertReservationsReturnToZero();
        admission.assertReservationsReturnToZero();
        priced.assertReservationsReturnToZero();
      } catch (AssertionError e) {
        leftovers = e;
      }
    }

    JsonNode report = RouterClient.json(run.jsonLine());
    Map<String, JsonNode> byName = new LinkedHashMap<>();
    report.path("cases").forEach(c -> byName.put(c.path("name").asText(), c));
    String sdkVersion = report.path("sdk_version").asText();
    List<DynamicTest> tests = new ArrayList<>();
    for (String name : CASES) {
      tests.add(DynamicTest.dynamicTest(name, () -> {
        JsonNode result = byName.get(name);
        assertThat(result).as("conformance.js did not report case '%s'; its output:%n%s", name, run.output())
            .isNotNull();
        assertThat(result.path("ok").asBoolean())
            .as("openai %s, case '%s': %s", sdkVersion, name, result.path("error").asText()).isTrue();
      }));
    }
    AssertionError held = leftovers;
    tests.add(DynamicTest.dynamicTest("the script ran every case, exited 0, and nothing is held", () -> {
      assertThat(byName.keySet()).as("cases reported by conformance.js").containsExactlyElementsOf(CASES);
      assertThat(run.exitCode()).as("node conformance.js exit code; its output:%n%s", run.output()).isZero();
      if (held != null) {
        throw held;
      }
    }));
    return tests;
  }

  private static ObjectNode config(RoutedFleet fleet, RoutedFleet admission, RoutedFleet priced) {
    ObjectMapper mapper = new ObjectMapper();
    ObjectNode config = mapper.createObjectNode()
        .put("base_url", "http://127.0.0.1:" + fleet.router.port())
        .put("admission_base_url", "http://127.0.0.1:" + admission.router.port())
        .put("priced_base_url", "http://127.0.0.1:" + priced.router.port())
        .put("model", RoutedFleet.MODEL)
        .put("max_request_bytes", MAX_REQUEST_BYTES);
    ObjectNode prompts = config.putObject("prompts");
    PROMPTS.forEach((key, p) -> {
      ObjectNode node = prompts.putObject(key)
          .put("prompt", p.text())
          .put("max_tokens", p.maxTokens())
          .put("prompt_tokens", p.promptTokens())
          .put("text", SimEngine.expectedText(0, p.text(), p.seen()));
      SimEngine.expectedTokens(0, p.text(), p.seen()).forEach(node.putArray("tokens")::add);
    });
    return config;
  }

  /**
   * A prompt and what the simulator makes of it. It is the whole prompt key (a completion's prompt,
   * or a chat's only message), so {@link SimEngine#expectedTokens} gives the text.
   */
  private record Prompt(String text, int maxTokens, int seen) {

    Prompt(String text, int maxTokens) {
      this(text, maxTokens, maxTokens);
    }

    /** The simulator's tokenizer: whitespace-separated words. */
    int promptTokens() {
      return text.trim().split("\\s+").length;
    }
  }
}
