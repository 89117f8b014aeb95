package narwhal.core.legs;

import org.jspecify.annotations.Nullable;

/**
 * An engine's answer to its tokenize route.
 *
 * @param count the prompt's size in tokens
 * @param ids the prompt's token ids, when they were asked for and the answer lists them; else null
 */
public record PromptTokens(long count, int @Nullable [] ids) {}
