"""The Check yourself questions at the end of lesson 06, with their targets."""

from __future__ import annotations

from lessonkit.exercises.kinds import ChoiceExercise, Exercise, NumberExercise, Target, Trap

# Lesson 06's training set and loader: 900 points in batches of 30, trained for 10 epochs in Step 3.
TRAIN_POINTS = 900
BATCH_SIZE = 30
EPOCHS = 10
_STEPS_PER_EPOCH = -(-TRAIN_POINTS // BATCH_SIZE)  # a last, smaller batch would still be a step
_STEPS = _STEPS_PER_EPOCH * EPOCHS


def _steps_target() -> Target:
    return Target(
        float(_STEPS),
        rel_tol=0.001,
        correct=f"{TRAIN_POINTS} points ÷ {BATCH_SIZE} per batch = {_STEPS_PER_EPOCH} steps per epoch; "
        f"× {EPOCHS} epochs = {_STEPS} steps. One step is one batch: forward, loss, backward, update.",
        traps=(
            Trap(float(_STEPS_PER_EPOCH), "that is the number of steps in one epoch. The run lasts 10 epochs."),
            Trap(float(EPOCHS), "that is the number of epochs. Each epoch takes one step per batch."),
            Trap(
                float(TRAIN_POINTS * EPOCHS),
                "that counts examples, not steps. One step handles a whole batch of 30 points at once.",
            ),
            Trap(float(TRAIN_POINTS), "that is the number of training points. A step handles a batch of 30 of them."),
        ),
    )


EXERCISES: list[Exercise] = [
    ChoiceExercise(
        "06-sorted-data",
        title="training on class-sorted data",
        options={
            "A": "The learning rate is too small: raise it.",
            "B": "Each run of one class undoes what the run before taught. Fix: shuffle every epoch.",
            "C": "The model is too small to tell two classes apart: add layers and neurons.",
            "D": "The batches are too small to be useful: make each batch larger.",
        },
        answer="B",
        correct="a long run of cats teaches 'always answer cat'; then the dogs overwrite it. With "
        "`DataLoader(..., shuffle=True)` every batch is a fair mix of both classes.",
        feedback={
            "A": "a larger learning rate makes each run of one class overwrite the previous run even faster. "
            "The order of the data is the problem.",
            "C": "Step 1 trained the same model on the same data, shuffled, and it learned all three classes. "
            "The model was big enough; the order was wrong.",
            "D": "from sorted data a larger batch is still almost all one class. Only a mixed order gives "
            "mixed batches.",
        },
        hints=(
            "Look back at the saw-tooth loss curve in Step 1. What does the model see for ten steps in a row?",
            "What does `shuffle=True` change about each batch?",
        ),
        explanation="Without shuffling, the model sees only cats for many steps and learns 'always cat'; "
        "then only dogs, which undoes that. At the end it has forgotten the first class (Step 1's "
        "saw-tooth loss). Shuffling every epoch makes each batch a fair sample of all classes.",
    ),
    ChoiceExercise(
        "06-normalise-validation",
        title="which statistics normalise the validation set",
        options={
            "A": "The validation set's own mean and standard deviation.",
            "B": "The training set's mean and standard deviation, for both sets.",
            "C": "The mean and standard deviation of the training and validation sets together.",
            "D": "None: normalise only the training set and leave the validation set raw.",
        },
        answer="B",
        correct="at prediction time you do not know the statistics of future data. The model learned on "
        "inputs shifted and scaled with the training statistics, so every later input gets the same shift and scale.",
        feedback={
            "A": "then the same raw point would be shifted differently in the two sets, and you use facts "
            "about data the model should not know yet. Use the training statistics for both.",
            "C": "that lets the validation data leak into the preparation, so the validation score is too "
            "hopeful. Use the training set's statistics only.",
            "D": "the model learned on inputs near 0 with a spread of about 1. Raw inputs around 100 would "
            "look nothing like what it learned on.",
        },
        hints=(
            "When the model is used for real, which data do you have statistics for?",
            "The model must see every input shifted and scaled in exactly the same way it was trained on.",
        ),
        explanation="Compute the mean and standard deviation on the training set only, then apply them to "
        "the training set, the validation set and any future data (Step 1, 'Split, then normalise').",
        code='answer = "B"\n# mean, std = x_train_raw.mean(0), x_train_raw.std(0)\n# x_val = (x_val_raw - mean) / std',
    ),
    ChoiceExercise(
        "06-overfitting",
        title="training loss falls, validation loss rises",
        options={
            "A": "Underfitting: the model needs more epochs.",
            "B": "Overfitting: the model memorises the training set. Weight decay, dropout or early stopping help.",
            "C": "The learning rate is too large and training is diverging.",
            "D": "The validation set is too small to mean anything.",
        },
        answer="B",
        correct="the model has started to learn the noise and the wrong labels of the training set, not the "
        "pattern. Regularisation (weight decay, dropout, augmentation) makes memorising harder; early "
        "stopping keeps the weights from the best validation epoch. More or cleaner data helps too.",
        feedback={
            "A": "underfitting shows as a training loss that stays high. Here it keeps falling, and more "
            "epochs would make the gap wider.",
            "C": "a learning rate that is too large makes the training loss jump up or turn into nan. Here "
            "the training loss keeps falling.",
            "D": "Step 4's validation set had 300 points and showed the same rise. A rising validation "
            "loss with a falling training loss is the classic sign of memorising.",
        },
        hints=(
            "Which loss measures data the model has never trained on?",
            "Step 4 showed this exact picture with no regularisation. What did it call it?",
        ),
        explanation="Falling training loss with rising validation loss is overfitting (Step 4). Weight decay "
        "and dropout keep the validation loss lower; early stopping keeps the best epoch's weights.",
    ),
    NumberExercise(
        "06-steps",
        title="optimizer steps in a training run",
        unit="",
        target=_steps_target,
        hints=(
            "One step is one batch. How many batches of 30 are there in 900 points?",
            f"That is the number of steps in one epoch. Multiply by the {EPOCHS} epochs.",
        ),
        explanation=f"{TRAIN_POINTS} ÷ {BATCH_SIZE} = {_STEPS_PER_EPOCH} steps per epoch (`len(loader)`), "
        f"× {EPOCHS} epochs = {_STEPS} steps: the length of the learning-rate schedule in Step 3.",
        code=f"steps_per_epoch = {TRAIN_POINTS} // {BATCH_SIZE}   # len(loader)\n"
        f"answer = steps_per_epoch * {EPOCHS}   # {_STEPS}",
    ),
]
