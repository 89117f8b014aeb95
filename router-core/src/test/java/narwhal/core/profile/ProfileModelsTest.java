package narwhal.core.profile;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import narwhal.config.EngineRole;
import narwhal.config.EngineSpec;
import narwhal.core.fleet.Fleet;
import narwhal.proto.v1.ChatMessage;
import narwhal.proto.v1.ChatMessages;
import narwhal.proto.v1.CompletionRequest;
import narwhal.proto.v1.Prompt;
import narwhal.proto.v1.TokenIds;
import org.junit.jupiter.api.Test;

/** The latency models' formulas and the prompt-size estimate, value by value. */
class ProfileModelsTest {

  @Test
  void prefill_isQuadraticInPromptLength() {
    PrefillModel m = new PrefillModel(0.01, 1e-4, 1e-8, 16, 8192);

    assertThat(m.seconds(0)).isZero();
    assertThat(m.seconds(1000)).isCloseTo(0.01 + 0.1 + 0.01, within(1e-12));
    assertThat(m.seconds(4000)).isCloseTo(0.01 + 0.4 + 0.16, within(1e-12));
    assertThat(m.covers(8192)).isTrue();
    assertThat(m.covers(8193)).isFalse();
  }

  @Test
  void decodeInterval_isLinearInResidentTokensAndSequences() {
    DecodeModel m = new DecodeModel(0.008, 2e-7, 1e-4, 100_000, 64);

    assertThat(m.intervalSeconds(0, 0)).isCloseTo(0.008, within(1e-12));
    assertThat(m.intervalSeconds(50_000, 20)).isCloseTo(0.008 + 0.01 + 0.002, within(1e-12));
  }

  @Test
  void negativeCoefficients_areRefused() {
    assertThatThrownBy(() -> new PrefillModel(-1, 0, 0, 0, 1)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new DecodeModel(0, Double.NaN, 0, 0, 1)).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void promptSize_countsIdsExactly_andTextByCharsPerToken() {
    CompletionRequest ids = CompletionRequest.newBuilder()
        .setPrompt(Prompt.newBuilder().setTokenIds(TokenIds.newBuilder().addIds(1).addIds(2).addIds(3))).build();
    CompletionRequest text = CompletionRequest.newBuilder()
        .setPrompt(Prompt.newBuilder().setText("x".repeat(39))).build();
    CompletionRequest chat = CompletionRequest.newBuilder().setChat(ChatMessages.newBuilder()
        .addMessages(ChatMessage.newBuilder().setRole("system").setText("x".repeat(10)))
        .addMessages(ChatMessage.newBuilder().setRole("user").setText("y".repeat(20)))).build();

    assertThat(PromptSize.estimate(ids, 3.8)).isEqualTo(3);
    assertThat(PromptSize.estimate(text, 3.8)).isEqualTo(11); // ceil(39 / 3.8)
    assertThat(PromptSize.estimate(chat, 4.0)).isEqualTo(4 + 3 + 4 + 5);
    assertThat(PromptSize.estimate(CompletionRequest.getDefaultInstance(), 3.8)).isZero();
  }

  @Test
  void backlog_sumsEachResidentPrefillExactly() {
    Fleet fleet = new Fleet(List.of(EngineSpec.of("p0", "http://127.0.0.1:8000", EngineRole.PREFILL)));
    var p0 = fleet.get("p0");
    PrefillModel m = new PrefillModel(0.01, 1e-4, 1e-8, 16, 8192);
    var a = p0.reservePrefill(1000);
    var b = p0.reservePrefill(4000);

    assertThat(PrefillBacklog.seconds(p0, m)).isCloseTo(m.seconds(1000) + m.seconds(4000), within(1e-12));
    a.release();
    assertThat(PrefillBacklog.seconds(p0, m)).isCloseTo(m.seconds(4000), within(1e-12));
    b.release();
    assertThat(PrefillBacklog.seconds(p0, m)).isZero();
  }
}
