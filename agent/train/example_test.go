package train_test

import (
	"context"
	"fmt"
	"log"

	"github.com/loopagent/loop/agent/train"
	"github.com/loopagent/loop/llama"
)

// Finetune a base on chats and save the result; what `loop train` does,
// less its flags and printing.
func Example() {
	ctx := context.Background()
	cfg := train.Config{Epochs: 3, LearningRate: 1e-3, HeldOut: 0.1}
	chats, err := train.ReadChats("chats.jsonl")
	if err != nil {
		log.Fatal(err) // chats.jsonl:7: no "messages"
	}
	m, err := llama.LoadModel(ctx, "base.gguf", llama.ModelParams{VocabOnly: true})
	if err != nil {
		log.Fatal(err)
	}
	defer m.Close()
	tr, err := llama.NewTrainer(ctx, "base.gguf", cfg.TrainParams())
	if err != nil {
		log.Fatal(err) // not qwen2, or not F32
	}
	defer tr.Close()
	plan, err := train.Prepare(m, chats, cfg)
	if err != nil {
		log.Fatal(err) // chats.jsonl:3: the chat is 1300 tokens, more than a window of 1024
	}
	fmt.Printf("%d windows, %d held out\n", len(plan.Train), len(plan.Eval))
	rep, err := plan.Run(ctx, tr, train.Hooks{
		EpochEnd: func(e train.Epoch) { fmt.Printf("epoch %d: %.4f, held out %.4f\n", e.Epoch, e.TrainLoss, e.EvalLoss) },
	})
	if err != nil {
		log.Fatal(err)
	}
	if err := tr.SaveFile(ctx, "trained.gguf"); err != nil {
		log.Fatal(err)
	}
	fmt.Printf("held-out loss %.4f before, %.4f after\n", rep.Before, rep.Epochs[len(rep.Epochs)-1].EvalLoss)
}
