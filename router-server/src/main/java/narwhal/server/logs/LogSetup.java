package narwhal.server.logs;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.slf4j.ILoggerFactory;
import org.slf4j.LoggerFactory;
import org.slf4j.bridge.SLF4JBridgeHandler;

/**
 * Who logs what, for every library the router runs, decided once at start from the environment.
 *
 * <ul>
 *   <li>{@code java.util.logging} (which gRPC uses) is bridged into SLF4J, so its events take the
 *       router's format and levels instead of JUL's own multi-line stderr handler. Logback's
 *       {@code LevelChangePropagator} (logback.xml) keeps JUL's levels in step, so a disabled
 *       event costs JUL a level check, not a record.
 *   <li>{@code NARWHAL_LOG_LEVEL} is the level of Narwhal's own loggers ({@code narwhal.*}). Other
 *       libraries log at {@code INFO}, or at {@code NARWHAL_LOG_LEVEL} when that is quieter: asking
 *       for DEBUG gets Narwhal's detail, not gRPC's or Netty's.
 *   <li>The wire loggers ({@link #WIRE_LOGGERS}) print every HTTP/2 frame, headers and bodies
 *       included, so a client's {@code authorization} metadata and every prompt: they stay at
 *       {@code WARN} whatever {@code NARWHAL_LOG_LEVEL} says, unless {@code NARWHAL_LOG_LEVELS}
 *       names them one by one. So does gRPC's per-connection failure log ({@link
 *       #GRPC_CONNECTIONS}), whose volume and content an outsider decides.
 *   <li>{@code NARWHAL_LOG_LEVELS} sets loggers by name: {@code logger=LEVEL[,logger=LEVEL...]}.
 * </ul>
 */
public final class LogSetup {

  /** The level variable. */
  public static final String LEVEL_ENV = "NARWHAL_LOG_LEVEL";
  /** The per-logger variable. */
  public static final String LEVELS_ENV = "NARWHAL_LOG_LEVELS";

  /**
   * Loggers that write protocol frames: grpc-netty's HTTP/2 frame loggers (named after the
   * handlers), Netty's {@code LoggingHandler} and HTTP/2 frame logger. Their own warnings still
   * show; their DEBUG frame dumps only when an operator names them in {@code NARWHAL_LOG_LEVELS}.
   */
  public static final List<String> WIRE_LOGGERS = List.of(
      "io.grpc.netty.NettyServerHandler",
      "io.grpc.netty.NettyClientHandler",
      "io.netty.handler.logging.LoggingHandler",
      "io.netty.handler.codec.http2.Http2FrameLogger");

  /**
   * gRPC's per-connection log: a transport that failed (a client speaking HTTP/1 to the gRPC port,
   * a TLS handshake refused), with a stack trace and the client's bytes, at INFO. An outsider decides
   * how often it is written, so it is held at WARN like the wire loggers unless named.
   */
  public static final String GRPC_CONNECTIONS = "io.grpc.netty.NettyServerTransport.connections";

  private static final List<String> LEVEL_NAMES = List.of("TRACE", "DEBUG", "INFO", "WARN", "ERROR", "OFF");
  private static final String OWN = "narwhal";

  private LogSetup() {}

  /**
   * Bridges {@code java.util.logging} and applies the levels the environment asks for.
   *
   * @throws IllegalArgumentException a variable is malformed; the message says which and how
   */
  public static void apply(Map<String, String> env) {
    Level own = level(env.get(LEVEL_ENV), LEVEL_ENV);
    Map<String, Level> named = named(env.get(LEVELS_ENV));
    bridgeJavaUtilLogging();
    apply(own == null ? Level.INFO : own, named);
  }

  /**
   * Sets Narwhal's loggers to {@code own}, every other library to {@code INFO} (or {@code own}
   * when quieter), the wire loggers and gRPC's connection log to {@code WARN} (or {@code own} when
   * quieter), then the {@code named} loggers as given.
   */
  public static void apply(Level own, Map<String, Level> named) {
    ILoggerFactory factory = LoggerFactory.getILoggerFactory();
    if (!(factory instanceof LoggerContext context)) {
      return; // another SLF4J binding: its own configuration decides
    }
    Level libraries = own.isGreaterOrEqual(Level.INFO) ? own : Level.INFO;
    context.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME).setLevel(libraries);
    context.getLogger(OWN).setLevel(own);
    // Netty's own chatter (leak reports aside, which are ERROR) is for its maintainers.
    context.getLogger("io.netty").setLevel(own.isGreaterOrEqual(Level.WARN) ? own : Level.WARN);
    Level held = own.isGreaterOrEqual(Level.WARN) ? own : Level.WARN;
    for (String wire : WIRE_LOGGERS) {
      context.getLogger(wire).setLevel(held);
    }
    context.getLogger(GRPC_CONNECTIONS).setLevel(held);
    named.forEach((name, level) -> context.getLogger(name).setLevel(level));
  }

  /** Routes {@code java.util.logging} into SLF4J, once, without JUL's own console handler. */
  public static synchronized void bridgeJavaUtilLogging() {
    if (!SLF4JBridgeHandler.isInstalled()) {
      SLF4JBridgeHandler.removeHandlersForRootLogger();
      SLF4JBridgeHandler.install();
    }
  }

  /** {@code NARWHAL_LOG_LEVELS}: {@code logger=LEVEL} pairs separated by commas; null or blank for none. */
  static Map<String, Level> named(@Nullable String spec) {
    Map<String, Level> levels = new LinkedHashMap<>();
    if (spec == null || spec.isBlank()) {
      return levels;
    }
    for (String pair : spec.split(",")) {
      int eq = pair.indexOf('=');
      String name = eq < 0 ? "" : pair.substring(0, eq).strip();
      if (name.isEmpty()) {
        throw new IllegalArgumentException(LEVELS_ENV + " must be logger=LEVEL pairs separated by commas "
            + "(e.g. io.grpc.netty.NettyServerHandler=DEBUG), got '" + ControlCharacters.escape(pair.strip()) + "'");
      }
      levels.put(name, level(pair.substring(eq + 1), LEVELS_ENV + " (" + ControlCharacters.escape(name) + ")"));
    }
    return levels;
  }

  private static @Nullable Level level(@Nullable String value, String what) {
    if (value == null || value.isBlank()) {
      return null;
    }
    String upper = value.strip().toUpperCase(Locale.ROOT);
    if (!LEVEL_NAMES.contains(upper)) {
      throw new IllegalArgumentException(what + " must be one of " + String.join(", ", LEVEL_NAMES)
          + ", got '" + ControlCharacters.escape(value.strip()) + "'");
    }
    return Level.toLevel(upper);
  }
}
