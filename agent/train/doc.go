// Package train finetunes a model on agent chats: it reads chats in the
// OpenAI form, renders each with the model's own chat template, marks the
// tokens the model should learn to write (the assistant's), splits off a
// held-out share, packs the chats into windows and trains every weight of
// a qwen2 model with llama.Trainer, epoch by epoch, on a learning-rate
// schedule. `loop train` is this package behind flags.
//
// Read the chats, load the model's vocabulary, make a Trainer with the
// Config's parameters, prepare the windows, run, and save:
//
//	cfg := train.Config{Epochs: 3, LearningRate: 1e-3, HeldOut: 0.1}
//	chats, err := train.ReadChats("chats.jsonl")
//	if err != nil { ... }           // names the file and the line
//	m, err := llama.LoadModel(ctx, "base.gguf", llama.ModelParams{VocabOnly: true})
//	if err != nil { ... }
//	defer m.Close()
//	tr, err := llama.NewTrainer(ctx, "base.gguf", cfg.TrainParams())
//	if err != nil { ... }           // not qwen2, not F32
//	defer tr.Close()
//	plan, err := train.Prepare(m, chats, cfg)
//	if err != nil { ... }           // a chat longer than a window, a bad weight
//	rep, err := plan.Run(ctx, tr, train.Hooks{
//		EpochEnd: func(e train.Epoch) { fmt.Println(e.Epoch, e.TrainLoss, e.EvalLoss) },
//	})
//	if err != nil { ... }
//	err = tr.SaveFile(ctx, "trained.gguf") // the base file, its tensors replaced
//
// What trains. A chat is rendered whole, without a generation prompt, in
// the call format agent/local detects from the template, so the model
// learns the very prompt it will be given. The loss, trained and held
// out, is over the assistant's tokens only, from after the generation
// prompt through the end-of-turn token that stops a reply (mask.go says
// how they are found), or over every token with Config.TrainAll. An
// assistant message with "weight": 0 is context and trains nothing.
// Config.PretrainEpochs trains the first epochs on every token after the
// shared prefix; the held-out loss stays the assistant's throughout.
//
// Windows. The chats are shuffled by Config.Seed (one seed, one model,
// byte for byte), Config.HeldOut of them are held out, and each part is
// packed into windows of whole chats, at most Config.Window tokens
// (llama.PackWhole), or with Config.Fill into full windows as llama.cpp's
// datasets are (llama.PackWindows). A chat longer than a window is
// refused with ErrChatTooLong: a window never starts inside a chat.
//
// The shared prefix. The tokens every chat starts with and trains nothing
// on (the system prompt and the tool schemas, often most of a short
// chat) run forward only in each window, and the rest attends to their
// keys and values (llama.Window.Prefix); without a backward pass through
// them an epoch is much cheaper. Config.NoSharedPrefix trains through
// them too; Config.PrefixEvery reuses their keys and values for several
// steps. Chats often come in a few variants of that start (an agent offers
// a question fewer tools than a task), so the tokens all chats share stop
// at the first tool that differs; Config.PrefixShare widens each window's
// prefix to the start that a share of the chats have, its whole variant.
//
// Checkpoints. A long run sets Config.Checkpoint to a folder: after each
// epoch Run writes the weights, AdamW's state and a manifest (the recipe,
// the hashes of the base and the chats, the losses) into it, atomically.
// A stopped run goes on with a new Plan and Trainer made as before:
//
//	plan, err := train.Prepare(m, chats, cfg)
//	man, err := plan.Resume(ctx, tr, "ckpt") // refused: another base, chats or recipe, a damaged file
//	rep, err := plan.Run(ctx, tr, hooks)     // from epoch man.Epoch+1
//
// and ends with the same model, bit for bit, and the same losses as a run
// that never stopped (checkpoint.go says what is saved and what is
// recomputed).
//
// Errors are *Error values (Op, Path, Line, Err) whose message is the
// chat's position (or the checkpoint's file) and the cause, wrapping a
// few sentinels: ErrNoChats, ErrNoMessages, ErrNoChatTemplate,
// ErrChatTooLong, ErrReplyNotFound, ErrConfig and ErrCheckpoint. Errors
// of the Trainer are llama's.
//
// Cancellation: Run checks ctx before each window (llama.Trainer.Epoch);
// a cancelled run returns the epochs finished and an error wrapping
// ctx.Err(), and nothing is written but the checkpoints of the epochs
// finished. Progress goes to the Hooks given to Run; the package prints
// nothing.
//
// A Plan and a llama.Trainer are not safe for concurrent use.
package train
