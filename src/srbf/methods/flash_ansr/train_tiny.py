"""Train a tiny Flash-ANSR model with the package's own trainer; run under the method's env.

    python train_tiny.py DIRECTORY STEPS

DIRECTORY holds the training set ``srbf.methods.flash_training.write_training_set`` wrote
(train.yaml and the configs it names). The model goes to ``DIRECTORY/model``, with the engine
file beside its model.yaml, so ``FlashANSR.load(DIRECTORY/model)`` reads it offline. The last
line printed is ``srbf-train: {json}`` (model directory, steps, seconds, parameters).
Only the standard library, torch and flash_ansr are imported (srbf is not in this environment).
"""

import json
import os
import shutil
import sys
import time


def main(directory: str, steps: int) -> None:
    import torch

    torch.set_num_threads(1)
    from flash_ansr.train.train import Trainer

    trainer = Trainer.from_config(os.path.join(directory, "train.yaml"))
    started = time.perf_counter()
    model = trainer.run(project_name="srbf", entity="srbf", name="tiny", steps=steps, device="cpu",
                        num_workers=1, validate_num_workers=1, wandb_mode="disabled", verbose=False)
    seconds = time.perf_counter() - started
    out = os.path.join(directory, "model")
    model.save(directory=out, config=os.path.join(directory, "model.yaml"))  # weights, model.yaml, tokenizer.yaml
    if not os.path.isfile(os.path.join(out, "engine.yaml")):
        shutil.copyfile(os.path.join(directory, "engine.yaml"), os.path.join(out, "engine.yaml"))
    parameters = sum(p.numel() for p in model.parameters())
    print("srbf-train: " + json.dumps({"model": out, "steps": steps, "seconds": round(seconds, 1),
                                       "parameters": parameters, "files": sorted(os.listdir(out))}))


if __name__ == "__main__":  # the trainer's data workers are spawned: they re-import this file
    main(os.path.abspath(sys.argv[1]), int(sys.argv[2]))
