package narwhal.config;

import java.util.Set;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * What one parse of a fleet file shares: the problems found so far, the environment that {@code
 * "${VAR}"} values are read from, and the dialects the router can speak.
 */
final class ParseContext {

  private static final Pattern REFERENCE = Pattern.compile("\\$\\{([^}]*)}");
  private static final Pattern VARIABLE_NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");

  private final ConfigProblems problems = new ConfigProblems();
  private final Function<String, @Nullable String> env;
  private final Set<String> knownDialects;

  ParseContext(Function<String, @Nullable String> env, Set<String> knownDialects) {
    this.env = env;
    this.knownDialects = Set.copyOf(knownDialects);
  }

  ConfigProblems problems() {
    return problems;
  }

  Set<String> knownDialects() {
    return knownDialects;
  }

  /** The environment variable's value, or null when it is unset. */
  @Nullable String environment(String name) {
    return env.apply(name);
  }

  /** True for a name a shell can export: a letter or {@code _}, then letters, digits, {@code _}. */
  static boolean isVariableName(String name) {
    return VARIABLE_NAME.matcher(name).matches();
  }

  void error(String path, String message) {
    problems.add(path, message);
  }

  /**
   * The string with a whole-string {@code ${VAR}} reference replaced by the variable's value. Only
   * a value that is exactly one reference is substituted; any other text is taken literally. Null
   * (with the problem recorded) when the variable is unset or the reference is malformed.
   */
  @Nullable String substitute(String path, String value) {
    Matcher m = REFERENCE.matcher(value);
    if (!m.matches()) {
      return value;
    }
    String name = m.group(1);
    if (!VARIABLE_NAME.matcher(name).matches()) {
      error(path, "\"" + value + "\" is not a valid environment variable reference");
      return null;
    }
    String resolved = env.apply(name);
    if (resolved == null) {
      error(path, "environment variable " + name + " is not set");
      return null;
    }
    return resolved;
  }
}
