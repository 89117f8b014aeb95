package narwhal.sim;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Per-request fault directives written inside the prompt: {@code [[sim:SPEC]]}, any number.
 *
 * <p>The prompt is left as it is: directives are only read, and still take part in the prompt
 * hash that picks the generated tokens.
 */
final class Directives {
  private static final Pattern DIRECTIVE = Pattern.compile("\\[\\[sim:(.*?)]]", Pattern.DOTALL);

  private Directives() {}

  /** Parses every directive in {@code text}; throws {@link IllegalArgumentException} on a bad one. */
  static List<FaultSpec> parse(String text) {
    if (!text.contains("[[sim:")) {
      return List.of();
    }
    List<FaultSpec> specs = new ArrayList<>();
    Matcher matcher = DIRECTIVE.matcher(text);
    while (matcher.find()) {
      specs.add(FaultSpec.parse(matcher.group(1)));
    }
    return specs;
  }
}
