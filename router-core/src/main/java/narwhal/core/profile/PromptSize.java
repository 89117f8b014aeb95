package narwhal.core.profile;

import narwhal.proto.v1.ChatMessage;
import narwhal.proto.v1.CompletionRequest;

/**
 * The router's estimate of a request's prompt tokens when no engine has counted them: token ids
 * count exactly, text counts as {@code characters / engine.chars_per_token} (rounded up). Chat
 * messages add a few tokens each for the template's role markers, as chat templates do.
 */
public final class PromptSize {

  /** Template tokens a chat template adds around one message (role header and separators). */
  static final int TEMPLATE_TOKENS_PER_MESSAGE = 4;

  private PromptSize() {}

  public static long estimate(CompletionRequest request, double charsPerToken) {
    if (request.hasChat()) {
      long tokens = 0;
      for (ChatMessage m : request.getChat().getMessagesList()) {
        String content = m.hasText() ? m.getText() : m.getContentJson();
        tokens += TEMPLATE_TOKENS_PER_MESSAGE + fromChars(content.length(), charsPerToken);
      }
      return tokens;
    }
    if (!request.hasPrompt()) {
      return 0;
    }
    var prompt = request.getPrompt();
    if (prompt.hasTokenIds()) {
      return prompt.getTokenIds().getIdsCount();
    }
    return fromChars(prompt.hasText() ? prompt.getText().length() : prompt.getJson().length(), charsPerToken);
  }

  private static long fromChars(int chars, double charsPerToken) {
    return chars == 0 ? 0 : (long) Math.ceil(chars / Math.max(0.1, charsPerToken));
  }
}
