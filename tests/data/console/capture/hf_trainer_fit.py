"""Capture real Hugging Face Trainer console output (run by hand, not by the tests).

python hf_trainer_fit.py > ../hf_trainer.txt 2>&1
"""
import sys

import torch
from transformers import Trainer, TrainingArguments

torch.manual_seed(0)


class Data(torch.utils.data.Dataset):
    def __init__(self, n):
        self.x = torch.randn(n, 8)
        self.y = self.x.sum(1)

    def __len__(self):
        return len(self.x)

    def __getitem__(self, i):
        return {"x": self.x[i], "labels": self.y[i]}


class Tiny(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(8, 1)

    def forward(self, x, labels=None):
        out = self.lin(x).squeeze(-1)
        return {"loss": torch.nn.functional.mse_loss(out, labels), "logits": out}


args = TrainingArguments(output_dir="/tmp/trainlint-hf-capture", max_steps=20, per_device_train_batch_size=8,
                         logging_steps=5, eval_strategy="steps", eval_steps=10, save_strategy="no",
                         report_to=[], learning_rate=0.05, use_cpu=True,
                         disable_tqdm=sys.argv[1:] == ["notqdm"])
Trainer(model=Tiny(), args=args, train_dataset=Data(64), eval_dataset=Data(16)).train()
# With disable_tqdm=True the Trainer prints the dicts with print() and draws no bar:
#   python hf_trainer_fit.py notqdm > ../hf_trainer_notqdm.txt 2>&1
