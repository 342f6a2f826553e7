// The only view the search has of a network. mcts/ never includes LibTorch: a network lives
// behind this interface (nn/), and tests plug in the uniform evaluator below or a scripted one.
#pragma once
#include <algorithm>
#include <string>

namespace poppy::mcts {

class Evaluator {
 public:
  virtual ~Evaluator() = default;
  // planes: batch x encoder.inputSize() floats. Writes batch x policySize logits and
  // batch x 3 probabilities (win, draw, loss) from the side to move's view; for more than two
  // players batch x (players + 1): each player's chance to win, the mover first and then
  // clockwise, then the draw's (mcts/player_scores.h).
  virtual void evaluate(const float* planes, int batch, float* policyLogits, float* wdl) = 0;
  // Whether evaluate() may run on several threads at once (play::Analyzer's search threads);
  // when not, those threads take turns.
  virtual bool threadSafe() const { return false; }
  // What runs the network, for the lines that report a loaded model ("Eigen, kernel
  // avx512-int8"); empty where there is nothing to say.
  virtual std::string description() const { return {}; }
};

// No knowledge at all: equal logits and a certain draw. The search then plays on exact game
// ends only, which is what tests of the tree mechanics and overhead benchmarks want.
class UniformEvaluator : public Evaluator {
 public:
  // valueSize: 3 for two players, players + 1 for more (the last is the draw).
  explicit UniformEvaluator(int policySize, int valueSize = 3) : policySize_(policySize), valueSize_(valueSize) {}
  void evaluate(const float* /*planes*/, int batch, float* policyLogits, float* values) override {
    std::fill(policyLogits, policyLogits + size_t(batch) * policySize_, 0.0f);
    std::fill(values, values + size_t(batch) * valueSize_, 0.0f);
    const int draw = valueSize_ == 3 ? 1 : valueSize_ - 1;
    for (int i = 0; i < batch; ++i) values[size_t(i * valueSize_ + draw)] = 1.0f;
  }
  bool threadSafe() const override { return true; }

 private:
  int policySize_;
  int valueSize_;
};

}  // namespace poppy::mcts
