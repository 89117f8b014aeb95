package narwhal.openai;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import java.util.Map;
import narwhal.proto.v1.Usage;
import org.jspecify.annotations.Nullable;

/**
 * A whole non-streaming answer, accumulated from the relayed stream by {@link AnswerAssembler}.
 * The HTTP front-end renders it as the OpenAI JSON body; the gRPC front-end maps it onto {@code
 * narwhal.v1.Completion}.
 *
 * @param text the generated text (chat: the message content)
 * @param role the chat role ({@code assistant} unless the engine named another)
 * @param finishReason the last finish reason the stream set, or null
 * @param stopReason the last non-null stop reason as JSON, or JSON {@code null}
 * @param usageJson the usage object as HTTP returns it (the engine's own, which may carry more
 *     fields than {@link Usage}), or null when the stream sent none
 * @param usage the last typed usage the stream carried, or null
 * @param completionTokens the chunks that carried generated output
 * @param deltaTexts chat only: {@code reasoning_content}, {@code reasoning} and {@code refusal},
 *     each concatenated, in the order they first appeared
 * @param toolCalls chat only: the tool calls merged per index, each {@code {id, type, function:
 *     {name, arguments}}}, in index order
 * @param logprobs the choice's logprobs (arrays concatenated), or null when the stream sent none
 */
public record AssembledAnswer(
    String text,
    String role,
    @Nullable String finishReason,
    JsonNode stopReason,
    @Nullable JsonNode usageJson,
    @Nullable Usage usage,
    long completionTokens,
    Map<String, String> deltaTexts,
    List<ObjectNode> toolCalls,
    @Nullable ObjectNode logprobs) {

  /** The reasoning text: {@code reasoning_content}, or {@code reasoning} for engines that use that name. */
  public String reasoning() {
    String content = deltaTexts.get("reasoning_content");
    return content != null ? content : deltaTexts.getOrDefault("reasoning", "");
  }

  public String refusal() {
    return deltaTexts.getOrDefault("refusal", "");
  }

  /** True when the chat reply has no text but other output (reasoning, refusal, tool calls). */
  public boolean onlyOtherOutput() {
    return text.isEmpty() && (!toolCalls.isEmpty() || !deltaTexts.isEmpty());
  }
}
