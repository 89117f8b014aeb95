package narwhal.bench.adaptive;

/**
 * One stretch of a trace: for {@code seconds}, requests arrive at {@code rateFactor} times the
 * run's base rate, with prompts around {@code promptTokens} and outputs around {@code
 * outputTokens} tokens.
 */
record TracePhase(String name, double seconds, double rateFactor, int promptTokens, int outputTokens) {

  TracePhase {
    if (!(seconds > 0) || !(rateFactor > 0) || promptTokens < 1 || outputTokens < 1) {
      throw new IllegalArgumentException("a trace phase needs positive duration, rate, prompt and output: " + name);
    }
  }
}
