package narwhal.server.logs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * NARWHAL_LOG_LEVEL sets Narwhal's own loggers; libraries stay at INFO unless that is louder than
 * asked; the HTTP/2 wire loggers stay at WARN unless named; java.util.logging reaches Logback.
 */
class LogSetupTest {

  private final LoggerContext context = (LoggerContext) LoggerFactory.getILoggerFactory();
  private final Map<Logger, Level> saved = new HashMap<>();

  @BeforeEach
  void save() {
    for (Logger l : context.getLoggerList()) {
      saved.put(l, l.getLevel());
    }
  }

  @AfterEach
  void restore() {
    for (Logger l : context.getLoggerList()) {
      l.setLevel(saved.get(l));
    }
  }

  private Level effective(String logger) {
    return context.getLogger(logger).getEffectiveLevel();
  }

  @Test
  void debug_isForNarwhalsLoggers_notForLibrariesOrTheWire() {
    LogSetup.apply(Map.of(LogSetup.LEVEL_ENV, "debug"));

    assertThat(effective("narwhal.core.request.OutcomeRecorder")).isEqualTo(Level.DEBUG);
    assertThat(effective("io.grpc.internal.ServerImpl")).isEqualTo(Level.INFO);
    assertThat(effective(LogSetup.GRPC_CONNECTIONS)).as("what an outsider makes it write").isEqualTo(Level.WARN);
    assertThat(effective("io.netty.handler.codec.http2.Http2ConnectionHandler")).isEqualTo(Level.WARN);
    for (String wire : LogSetup.WIRE_LOGGERS) {
      assertThat(effective(wire)).as(wire).isEqualTo(Level.WARN);
    }
  }

  @Test
  void trace_withTheWireLoggersNamed_opensOnlyThose() {
    LogSetup.apply(Map.of(LogSetup.LEVEL_ENV, "TRACE",
        LogSetup.LEVELS_ENV, "io.grpc.netty.NettyServerHandler=DEBUG, io.grpc = debug"));

    assertThat(effective(LogSetup.GRPC_CONNECTIONS)).as("a parent named does not open it").isEqualTo(Level.WARN);
    assertThat(effective("narwhal.x")).isEqualTo(Level.TRACE);
    assertThat(effective("io.grpc.netty.NettyServerHandler")).isEqualTo(Level.DEBUG);
    assertThat(effective("io.grpc.netty.NettyClientHandler")).as("not named: still held").isEqualTo(Level.WARN);
    assertThat(effective("io.grpc.internal.SerializingExecutor")).isEqualTo(Level.DEBUG);
  }

  @Test
  void aQuieterLevel_quietsLibrariesToo() {
    LogSetup.apply(Map.of(LogSetup.LEVEL_ENV, "ERROR"));

    assertThat(effective("narwhal.server.RouterServer")).isEqualTo(Level.ERROR);
    assertThat(effective("io.grpc.internal.ServerImpl")).isEqualTo(Level.ERROR);
    assertThat(effective("io.netty.util.ResourceLeakDetector")).isEqualTo(Level.ERROR);
    assertThat(effective("io.grpc.netty.NettyServerHandler")).isEqualTo(Level.ERROR);
    assertThat(effective(LogSetup.GRPC_CONNECTIONS)).isEqualTo(Level.ERROR);
  }

  @Test
  void malformedVariables_areRefused_sayingWhatIsWanted() {
    assertThatThrownBy(() -> LogSetup.apply(Map.of(LogSetup.LEVEL_ENV, "verbose")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("NARWHAL_LOG_LEVEL must be one of TRACE, DEBUG, INFO, WARN, ERROR, OFF, got 'verbose'");
    assertThatThrownBy(() -> LogSetup.apply(Map.of(LogSetup.LEVELS_ENV, "io.grpc")))
        .hasMessageStartingWith("NARWHAL_LOG_LEVELS must be logger=LEVEL pairs separated by commas");
    assertThatThrownBy(() -> LogSetup.apply(Map.of(LogSetup.LEVELS_ENV, "io.grpc=loud\n")))
        .hasMessage("NARWHAL_LOG_LEVELS (io.grpc) must be one of TRACE, DEBUG, INFO, WARN, ERROR, OFF, got 'loud'");
  }

  @Test
  void javaUtilLogging_reachesLogback_asOneEvent() {
    LogSetup.apply(Map.of());
    ListAppender<ILoggingEvent> captured = new ListAppender<>();
    captured.start();
    Logger root = context.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
    root.addAppender(captured);
    try {
      java.util.logging.Logger.getLogger("io.grpc.netty.SomeTransport").info("Transport failed");
      java.util.logging.Logger.getLogger("io.grpc.netty.SomeTransport").fine("below INFO: never built");
    } finally {
      root.detachAppender(captured);
    }

    assertThat(captured.list).extracting(ILoggingEvent::getLoggerName, ILoggingEvent::getFormattedMessage)
        .containsExactly(org.assertj.core.groups.Tuple.tuple("io.grpc.netty.SomeTransport", "Transport failed"));
    assertThat(java.util.logging.Logger.getLogger("").getHandlers())
        .as("JUL's own console handler is gone").noneMatch(h -> h instanceof java.util.logging.ConsoleHandler);
  }
}
